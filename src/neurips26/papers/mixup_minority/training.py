"""Training a small CNN (or ResNet-32 at paper scale) on a long-tailed set with one method of baselines.METHODS.

SGD with momentum, cosine learning-rate decay to 0 over a fixed number of steps (the same for every method and ratio:
the budget is counted in steps because resampling and Mixup have no natural epoch; the README gives the convergence
check). Mixup draws lambda ~ Beta(alpha, alpha) per example.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from neurips26.common.models import optim
from neurips26.papers.mixup_minority.baselines import Method
from neurips26.papers.mixup_minority.method import mixup_targets, ms_targets, simplex_etf
from neurips26.papers.mixup_minority.samplers import PairSampler, draw_single


class SmallCNN(nn.Module):
    """conv3x3(16) - pool - conv3x3(32) - pool - linear(dim): the feature extractor. The last map is linear (no ReLU)
    so the features are signed: non-negative features cannot align with the rows of a fixed sum-zero ETF (issue #61),
    and the same backbone goes under every head."""

    def __init__(self, channels: int, side: int, dim: int):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(32 * (side // 4) ** 2, dim))

    def forward(self, x):
        return self.body(x)


class Net(nn.Module):
    def __init__(self, features: nn.Module, dim: int, classes: int, head: str, seed: int):
        super().__init__()
        self.features, self.classes, self.head = features, classes, head
        if head == "linear":
            self.classifier = nn.Linear(dim, classes, bias=False)
        else:
            rows = classes if head == "etf" else classes * (classes + 1) // 2
            self.register_buffer("etf", torch.tensor(simplex_etf(rows, dim, seed), dtype=torch.float32))

    def weights(self) -> torch.Tensor:
        return self.classifier.weight if self.head == "linear" else self.etf

    def forward(self, x):
        return self.features(x) @ self.weights().T


def build_model(x_shape: tuple, classes: int, head: str, cfg, seed: int) -> Net:
    """The feature extractor and head; the feature dimension is raised to rows - 1 when a fixed ETF needs it."""
    rows = {"linear": 0, "etf": classes, "ms": classes * (classes + 1) // 2}[head]
    dim = max(int(cfg.model.dim), rows - 1)
    if cfg.model.name == "resnet32":
        from neurips26.papers.mixup_minority.resnet import resnet32

        features = resnet32(x_shape[0], dim)
    else:
        features = SmallCNN(x_shape[0], x_shape[1], dim)
    return Net(features, dim, classes, head, seed)


def train(method: Method, x: np.ndarray, y: np.ndarray, classes: int, cfg, seed: int, device: str = "cpu") -> Net:
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    model = build_model(x.shape[1:], classes, method.head, cfg, seed).to(device)
    steps, batch = int(cfg.train.steps), int(cfg.train.batch)
    opt = optim.SGD(model.parameters(), lr=float(cfg.train.lr), momentum=0.9,
                    weight_decay=float(cfg.train.weight_decay), nesterov=True)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 0.5 * (1 + np.cos(np.pi * t / steps)))
    xt, yt = torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)
    sampler = PairSampler(method.mixup or "instance", y, classes)
    prior = np.bincount(y, minlength=classes) / len(y)
    adjust = torch.tensor(float(cfg.train.la_tau) * np.log(prior), dtype=torch.float32, device=device)
    alpha, delta = float(cfg.mixup.alpha), float(cfg.mixup.delta)
    losses = np.zeros(steps)
    model.train()
    for step in range(steps):
        if method.mixup is None:
            idx = torch.from_numpy(draw_single(sampler, method.single, batch, rng)).to(device)
            logits = model(xt[idx])
            if method.loss == "la":
                logits = logits + adjust
            loss = nn.functional.cross_entropy(logits, yt[idx])
        else:
            i, j = sampler.draw(batch, rng)
            lam = rng.beta(alpha, alpha, batch)
            lam_t = torch.tensor(lam, dtype=torch.float32, device=device)[:, None, None, None]
            ti, tj = torch.from_numpy(i).to(device), torch.from_numpy(j).to(device)
            logits = model(lam_t * xt[ti] + (1 - lam_t) * xt[tj])
            if method.head == "ms":
                target = torch.from_numpy(ms_targets(y[i], y[j], lam, delta, classes)).to(device)
                loss = nn.functional.cross_entropy(logits, target)
            else:
                soft = torch.tensor(mixup_targets(y[i], y[j], lam, classes), dtype=torch.float32, device=device)
                loss = -(soft * torch.log_softmax(logits, 1)).sum(1).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        losses[step] = float(loss.detach())
    model.eval()
    model.train_losses = losses  # the convergence rule reads the last tenth (JOURNAL.md, issue #61)
    return model


def final_loss(model: Net) -> float:
    """Mean training loss over the last tenth of the steps (the convergence rule's loss)."""
    losses = model.train_losses
    return float(losses[-max(1, len(losses) // 10):].mean())


@torch.no_grad()
def features(model: Net, x: np.ndarray) -> np.ndarray:
    device = next(model.parameters()).device
    xt = torch.from_numpy(x)
    feats = torch.cat([model.features(xt[s:s + 1024].to(device)).cpu() for s in range(0, len(x), 1024)])
    return feats.double().numpy()


def evaluate(model: Net, x: np.ndarray, y: np.ndarray, classes: int) -> dict:
    """Per-class accuracy (argmax over the K pure-class logits), the pure-class classifier rows, and the features'
    class statistics (collapse.class_geometry) on the set given: the training set for neural collapse, which is read
    from training features at the end of training (Papyan et al. 2020), the test set for accuracy."""
    from neurips26.papers.mixup_minority.collapse import class_geometry

    feats = features(model, x)
    w = model.weights().detach().cpu().double().numpy()[:classes]
    pred = (feats @ w.T).argmax(1)
    per_class = np.array([(pred[y == c] == c).mean() for c in range(classes)])
    return {"per_class_acc": per_class, "w": w, **class_geometry(feats, y, classes)}

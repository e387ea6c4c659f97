"""A fixed simplex-ETF head on a signed feature map reaches self-duality on separable data (issue #61 item 3): the
centred training class means align with the head's rows. With a final ReLU (non-negative features) they cannot, since
the rows sum to zero; the second test shows that difference, so the first cannot pass by construction."""

import numpy as np
import torch
from omegaconf import OmegaConf
from torch import nn

from neurips26.papers.mixup_minority import training
from neurips26.papers.mixup_minority.baselines import METHODS
from neurips26.papers.mixup_minority.collapse import class_geometry

K = 4
CFG = OmegaConf.create(
    {
        "model": {"name": "small_cnn", "dim": 8},
        "train": {"steps": 150, "batch": 32, "lr": 0.05, "weight_decay": 5e-4, "la_tau": 1.0},
        "mixup": {"alpha": 1.0, "delta": 0.25},
    }
)


def separable_images(per_class: int = 15, seed: int = 0):
    """K well-separated 8 x 8 prototypes plus small noise."""
    rng = np.random.default_rng(seed)
    protos = rng.standard_normal((K, 1, 8, 8)) * 2.0
    y = np.repeat(np.arange(K), per_class)
    x = protos[y] + 0.1 * rng.standard_normal((len(y), 1, 8, 8))
    return x.astype(np.float32), y.astype(np.int64)


def self_duality(model: training.Net, x: np.ndarray, y: np.ndarray) -> float:
    """Mean cosine between each centred training class mean and its ETF row."""
    means = class_geometry(training.features(model, x), y, K)["class_means"]
    rows = model.weights().detach().double().numpy()[:K]
    cos = (means * rows).sum(1) / (np.linalg.norm(means, axis=1) * np.linalg.norm(rows, axis=1))
    return float(cos.mean())


def test_fixed_etf_head_reaches_self_duality_on_signed_features():
    x, y = separable_images()
    model = training.train(METHODS["fixed_etf"], x, y, K, CFG, seed=0)
    assert model.train_losses[-15:].mean() < 0.1 * model.train_losses[:10].mean()
    assert self_duality(model, x, y) > 0.95


def test_a_final_relu_keeps_the_features_off_the_etf(monkeypatch):
    """Non-negative features have a non-negative mean; the same run ends further from the ETF rows."""
    x, y = separable_images()
    signed = self_duality(training.train(METHODS["fixed_etf"], x, y, K, CFG, seed=0), x, y)
    original = training.SmallCNN

    class ReluCNN(original):
        def forward(self, x):
            return nn.functional.relu(super().forward(x))

    monkeypatch.setattr(training, "SmallCNN", ReluCNN)
    torch.manual_seed(0)
    relu = training.train(METHODS["fixed_etf"], x, y, K, CFG, seed=0)
    feats = training.features(relu, x)
    assert feats.min() >= 0.0
    assert self_duality(relu, x, y) < signed

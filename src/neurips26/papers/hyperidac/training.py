"""Semi-supervised training of a head on frozen features: labelled cross-entropy + a pseudo-label loss on the
unlabelled pool, with one of three pseudo-labelling schemes.

    multilevel  HyperIDAC's: EMA teacher (confident) -> label history (majority) -> zero-shot fallback, weighted per level
    fixmatch    FixMatch-style self-training: the student's own confident label on the weak view trains the strong view
    debiased    DebiasPL: as fixmatch, the pseudo-label logits minus strength * log(EMA of the predicted class marginal)

Views of a feature: weak = the feature itself, strong = dropout + Gaussian noise (the feature-space stand-in for
RandAugment). Every scheme trains the same number of epochs over the unlabelled pool (a labelled batch per step).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from neurips26.common.models import optim
from neurips26.papers.hyperidac.method import HyperHead, prior_regularisers, pseudo_labels


@dataclass
class Split:
    x_lab: torch.Tensor
    y_lab: torch.Tensor
    x_unl: torch.Tensor
    zero_shot_unl: np.ndarray      # zero-shot labels of the unlabelled pool (the level-3 fallback)


def strong_view(f: torch.Tensor, cfg) -> torch.Tensor:
    return F.dropout(f, cfg.pseudo.dropout, training=True) + cfg.pseudo.strong_noise * torch.randn_like(f)


def _prior_loss(head, pi, cfg) -> torch.Tensor:
    if pi is None or not isinstance(head, HyperHead) or not head.use_prior:
        return torch.zeros(())
    balance, entropy = prior_regularisers(pi)
    return cfg.train.balance_weight * balance + cfg.train.entropy_weight * entropy


def train_semi(head, split: Split, cfg, scheme: str, seed: int, use_history: bool = True,
               use_fallback: bool = True):
    if scheme not in ("multilevel", "fixmatch", "debiased"):
        raise ValueError(f"unknown pseudo-labelling scheme {scheme!r}")
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    p, t = cfg.pseudo, cfg.train
    opt = optim.Adam([q for q in head.parameters() if q.requires_grad], lr=t.lr, weight_decay=t.weight_decay)
    teacher = copy.deepcopy(head)
    n_unl, n_lab = len(split.x_unl), len(split.x_lab)
    history = np.full((n_unl, int(p.history)), -1)
    marginal = torch.full((split.y_lab.max().item() + 1,), 1.0 / (split.y_lab.max().item() + 1))
    weights = torch.tensor([0.0, *p.weights])
    for epoch in range(int(t.epochs)):
        for idx in torch.randperm(n_unl, generator=gen).split(int(t.batch)):
            lab = torch.randint(n_lab, (min(int(t.batch), n_lab),), generator=gen)
            logits_lab, pi_lab = head(split.x_lab[lab])
            loss = F.cross_entropy(logits_lab, split.y_lab[lab])
            x = split.x_unl[idx]
            logits_strong, pi_unl = head(strong_view(x, cfg))
            with torch.no_grad():
                if scheme == "multilevel":
                    probs = torch.softmax(teacher(x)[0], -1).numpy()
                    labels, level = pseudo_labels(probs, history[idx.numpy()], split.zero_shot_unl[idx.numpy()],
                                                  p.confidence, p.agreement, use_history, use_fallback)
                    target, w = torch.from_numpy(labels), weights[torch.from_numpy(level)]
                else:
                    weak = head(x)[0]
                    probs = torch.softmax(weak, -1)
                    if scheme == "debiased":
                        marginal = cfg.debiased.momentum * marginal + (1 - cfg.debiased.momentum) * probs.mean(0)
                        probs = torch.softmax(weak - cfg.debiased.strength * marginal.log(), -1)
                    conf, target = probs.max(1)
                    w = (conf >= p.confidence).float()
            unl = (w * F.cross_entropy(logits_strong, target, reduction="none")).mean()
            pis = [q for q in (pi_lab, pi_unl) if q is not None]
            prior = _prior_loss(head, torch.cat(pis) if pis else None, cfg)
            total = loss + t.unlabelled_weight * unl + prior
            opt.zero_grad()
            total.backward()
            opt.step()
            with torch.no_grad():
                for q_t, q_s in zip(teacher.parameters(), head.parameters()):
                    q_t.mul_(p.ema).add_((1 - p.ema) * q_s)
        if scheme == "multilevel" and history.shape[1]:
            with torch.no_grad():
                history[:, epoch % history.shape[1]] = teacher(split.x_unl)[0].argmax(1).numpy()
    return teacher if scheme == "multilevel" else head


def train_supervised(head, x: torch.Tensor, y: torch.Tensor, cfg, seed: int, offsets: torch.Tensor | None = None):
    """Labelled training; `offsets` [n, K] are added to the logits in training only (logit adjustment)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    opt = optim.Adam(head.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)
    for _ in range(int(cfg.train.epochs)):
        for idx in torch.randperm(len(x), generator=gen).split(int(cfg.train.batch)):
            logits = head(x[idx])[0]
            if offsets is not None:
                logits = logits + offsets[idx]
            loss = F.cross_entropy(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return head

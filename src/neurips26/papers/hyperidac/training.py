"""Semi-supervised training of a head on frozen features: labelled cross-entropy + a pseudo-label loss on the
unlabelled pool, with one of four pseudo-labelling schemes.

    multilevel     HyperIDAC's: EMA teacher (confident) -> label history (majority) -> zero-shot fallback, per-level weight
    fixmatch       FixMatch: the student's own label on the weak view, kept at FixMatch's published confidence
                   threshold (`fixmatch.confidence`, 0.95), trains the strong view
    debiased       DebiasPL: as fixmatch, with debiased pseudo-labels and the adaptive marginal loss (`debias.py`) from
                   one EMA of the predicted class marginal
    debiased_cond  the same with one marginal per inferred domain cluster (`Split.cluster_unl`)

Every scheme keeps an EMA teacher of the student and returns it: the model evaluated is the EMA model for every method
(as FixMatch evaluates), so no method gains or loses by the averaging alone. Views of a feature: weak = the feature
itself, strong = dropout + Gaussian noise (the feature-space stand-in for RandAugment). Every scheme trains the same
number of epochs over the unlabelled pool (a labelled batch per step).

With `record` (a list), each epoch end appends the pseudo-labels the scheme would assign to the whole unlabelled pool,
scored against `Split.y_unl` per cell (`Split.cell_unl`): a diagnostic (bias reinforcement over epochs), never trained on.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from neurips26.common.models import optim
from neurips26.papers.hyperidac import debias
from neurips26.papers.hyperidac.method import HyperHead, prior_regularisers, pseudo_labels

SCHEMES = ("multilevel", "fixmatch", "debiased", "debiased_cond")


@dataclass
class Split:
    x_lab: torch.Tensor
    y_lab: torch.Tensor
    x_unl: torch.Tensor
    zero_shot_unl: np.ndarray      # zero-shot labels of the unlabelled pool (the level-3 fallback)
    y_unl: np.ndarray | None = None        # diagnostics only (`record`): true labels of the unlabelled pool
    cell_unl: np.ndarray | None = None     # diagnostics only: class x domain cell index of each unlabelled row
    cluster_unl: np.ndarray | None = None  # debiased_cond: inferred domain cluster of each unlabelled row


def strong_view(f: torch.Tensor, cfg) -> torch.Tensor:
    return F.dropout(f, cfg.pseudo.dropout, training=True) + cfg.pseudo.strong_noise * torch.randn_like(f)


def _prior_loss(head, pi, cfg) -> torch.Tensor:
    if pi is None or not isinstance(head, HyperHead) or not head.use_prior:
        return torch.zeros(())
    balance, entropy = prior_regularisers(pi)
    return cfg.train.balance_weight * balance + cfg.train.entropy_weight * entropy


@dataclass
class _State:
    """What a scheme's pseudo-labels depend on besides the current models."""
    scheme: str
    history: np.ndarray          # [n_unl, H] teacher labels of past epochs (-1: none yet)
    marginals: torch.Tensor      # [clusters, K] EMA class marginals (DebiasPL)
    clusters: torch.Tensor       # [n_unl] cluster of each unlabelled row (all 0: one global marginal)
    use_history: bool
    use_fallback: bool


def _targets(state: _State, head, teacher, x, rows: np.ndarray, split: Split, cfg, update: bool):
    """(pseudo-labels, per-sample weights, log marginal for the adaptive marginal loss or None) of unlabelled rows."""
    p = cfg.pseudo
    if state.scheme == "multilevel":
        probs = torch.softmax(teacher(x)[0], -1).numpy()
        labels, level = pseudo_labels(probs, state.history[rows], split.zero_shot_unl[rows], p.confidence,
                                      p.agreement, state.use_history, state.use_fallback)
        weights = torch.tensor([0.0, *p.weights])
        return torch.from_numpy(labels), weights[torch.from_numpy(level)], None
    weak = head(x)[0]
    probs = torch.softmax(weak, -1)
    log_marginal = None
    if state.scheme.startswith("debiased"):
        cluster = state.clusters[torch.from_numpy(rows)]
        if update:
            debias.update_marginals(state.marginals, probs, cluster, float(cfg.debiased.momentum))
        log_marginal = state.marginals[cluster].log()
        probs = debias.debiased_probs(weak, log_marginal, float(cfg.debiased.strength))
    conf, target = probs.max(1)
    return target, (conf >= float(cfg.fixmatch.confidence)).float(), log_marginal


def _record(state, head, teacher, split: Split, cfg, epoch: int, record: list) -> None:
    """Per cell: unlabelled rows, rows given a pseudo-label (weight > 0), and correct ones among those."""
    rows = np.arange(len(split.x_unl))
    target, w, _ = _targets(state, head, teacher, split.x_unl, rows, split, cfg, update=False)
    assigned = (w > 0).numpy()
    correct = assigned & (target.numpy() == split.y_unl)
    n_cells = int(split.cell_unl.max()) + 1
    for name, mask in (("n", np.ones_like(assigned)), ("assigned", assigned), ("correct", correct)):
        counts = np.bincount(split.cell_unl, weights=mask.astype(float), minlength=n_cells)
        record.extend({"epoch": epoch, "cell": cell, "count": name, "value": float(v)} for cell, v in enumerate(counts))


def train_semi(head, split: Split, cfg, scheme: str, seed: int, use_history: bool = True,
               use_fallback: bool = True, ema: float | None = None, record: list | None = None):
    """The EMA teacher after training (every scheme); `ema` overrides cfg.pseudo.ema (the positive controls)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown pseudo-labelling scheme {scheme!r}")
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    p, t = cfg.pseudo, cfg.train
    decay = float(p.ema if ema is None else ema)
    opt = optim.Adam([q for q in head.parameters() if q.requires_grad], lr=t.lr, weight_decay=t.weight_decay)
    teacher = copy.deepcopy(head)
    n_unl, n_lab = len(split.x_unl), len(split.x_lab)
    with torch.no_grad():
        k = head(split.x_lab[:1])[0].shape[1]   # number of classes
    clusters = split.cluster_unl if scheme == "debiased_cond" else np.zeros(n_unl, dtype=np.int64)
    if clusters is None:
        raise ValueError("debiased_cond needs Split.cluster_unl (the inferred domain clusters)")
    state = _State(scheme, np.full((n_unl, int(p.history)), -1),
                   torch.full((int(clusters.max()) + 1, k), 1.0 / k), torch.from_numpy(clusters.astype(np.int64)),
                   use_history, use_fallback)
    for epoch in range(int(t.epochs)):
        for idx in torch.randperm(n_unl, generator=gen).split(int(t.batch)):
            lab = torch.randint(n_lab, (min(int(t.batch), n_lab),), generator=gen)
            logits_lab, pi_lab = head(split.x_lab[lab])
            loss = F.cross_entropy(logits_lab, split.y_lab[lab])
            x = split.x_unl[idx]
            logits_strong, pi_unl = head(strong_view(x, cfg))
            with torch.no_grad():
                target, w, log_marginal = _targets(state, head, teacher, x, idx.numpy(), split, cfg, update=True)
            if log_marginal is not None:   # DebiasPL's adaptive marginal loss
                logits_strong = debias.margin_logits(logits_strong, log_marginal, float(cfg.debiased.strength))
            unl = (w * F.cross_entropy(logits_strong, target, reduction="none")).mean()
            pis = [q for q in (pi_lab, pi_unl) if q is not None]
            prior = _prior_loss(head, torch.cat(pis) if pis else None, cfg)
            total = loss + t.unlabelled_weight * unl + prior
            opt.zero_grad()
            total.backward()
            opt.step()
            with torch.no_grad():
                for q_t, q_s in zip(teacher.parameters(), head.parameters()):
                    q_t.mul_(decay).add_((1 - decay) * q_s)
        with torch.no_grad():
            if scheme == "multilevel" and state.history.shape[1]:
                state.history[:, epoch % state.history.shape[1]] = teacher(split.x_unl)[0].argmax(1).numpy()
            if record is not None:
                _record(state, head, teacher, split, cfg, epoch, record)
    return teacher


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

"""The layer-peeled (unconstrained features) model under Mixup, solved by gradient descent.

Every distinct training input gets its own free feature: the pure inputs of class k and the mixed inputs (a, b, lambda)
with lambda on a fixed grid of Beta(alpha, alpha) quantiles. A group g = (a, b, lambda_g) has weight pi_g = P(a, b) / G
under the sampler (closed form, samplers.pair_probabilities), so the objective is the population Mixup risk

    sum_g pi_g [ CE(W h_g, target_g) + (lambda_H / 2) |h_g|^2 ] + (lambda_W / 2) |W|_F^2

(Fang et al. 2021's regularised layer-peeled model, with the mixed inputs as extra examples). W is learned (K x d) or a
fixed simplex ETF (K or, for MS, K (K + 1) / 2 rows). Gradient descent: W by plain GD; each h_g by GD on its own
per-example objective (its gradient divided by pi_g, i.e. the step an example's own feature takes), so that rare groups
converge as fast as common ones. Minority collapse is read off the minority rows of W and the centred class means.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurips26.papers.mixup_minority.method import mean_pairwise_cosine, ms_targets, simplex_etf
from neurips26.papers.mixup_minority.samplers import pair_probabilities


@dataclass(frozen=True)
class LpmMethod:
    name: str
    sampler: str | None  # None: no Mixup (lambda = 1, pure inputs weighted n_k / N)
    classifier: str  # learned | etf (fixed K-ETF) | ms (fixed ETF over K (K + 1) / 2 singletons)


LPM_METHODS = {
    "ce": LpmMethod("ce", None, "learned"),
    "fixed_etf": LpmMethod("fixed_etf", None, "etf"),
    "mixup_instance": LpmMethod("mixup_instance", "instance", "learned"),
    "mixup_cb": LpmMethod("mixup_cb", "class_balanced", "learned"),
    "mixup_lobm": LpmMethod("mixup_lobm", "class_class", "learned"),
    "bmls": LpmMethod("bmls", "bmls", "learned"),
    "ms": LpmMethod("ms", "instance", "ms"),
    "bmls_ms": LpmMethod("bmls_ms", "bmls", "ms"),
}


def step_counts(classes: int, ratio: float, n_major: int = 1000) -> np.ndarray:
    """Step imbalance (Fang et al.): the first half of the classes n_major examples, the second half n_major / ratio."""
    major = classes // 2
    return np.array([n_major] * major + [n_major / ratio] * (classes - major), dtype=np.float64)


def beta_grid(alpha: float, points: int) -> np.ndarray:
    from scipy.stats import beta

    return beta.ppf((np.arange(points) + 0.5) / points, alpha, alpha)


def groups(method: LpmMethod, counts: np.ndarray, alpha: float, points: int, delta: float):
    """(first class, second class, lambda, weight) of every group, and its target (soft K-vector or MS index)."""
    k = len(counts)
    if method.sampler is None:
        a = b = np.arange(k)
        lam, weight = np.ones(k), counts / counts.sum()
    else:
        grid = beta_grid(alpha, points)
        p = pair_probabilities(method.sampler, counts)
        a, b, g = (x.ravel() for x in np.meshgrid(np.arange(k), np.arange(k), np.arange(points), indexing="ij"))
        lam, weight = grid[g], p[a, b] / points
    if method.classifier == "ms":
        target = ms_targets(a, b, lam, delta, k)
    else:
        target = np.zeros((len(a), k))
        np.add.at(target, (np.arange(len(a)), a), lam)
        np.add.at(target, (np.arange(len(a)), b), 1.0 - lam)
    return a, b, lam, weight, target


def solve(method: LpmMethod, counts: np.ndarray, cfg, seed: int) -> dict:
    """Run GD until the objective changes by less than cfg.tol (relative) over 200 steps, or cfg.max_steps; return
    the collapse measures. Gradients in closed form: d/dlogits = pi (softmax - target)."""
    k, d = len(counts), int(cfg.dim)
    a, b, lam, weight, target = groups(method, counts, float(cfg.alpha), int(cfg.lambda_points), float(cfg.delta))
    rng = np.random.default_rng(seed)
    h = rng.standard_normal((len(a), d)) * float(cfg.init_scale)
    learned = method.classifier == "learned"
    if learned:
        w = rng.standard_normal((k, d)) * float(cfg.init_scale)
    else:
        rows = k if method.classifier == "etf" else k * (k + 1) // 2
        w = simplex_etf(rows, d, seed) * float(cfg.etf_norm)
    if target.ndim == 1:
        target = np.eye(len(w))[target]
    lam_w, lam_h, lr = float(cfg.wd_w), float(cfg.wd_h), float(cfg.lr)
    pi = weight[:, None]

    def loss_and_dlogits():
        logits = h @ w.T
        logits = np.maximum(logits - logits.max(1, keepdims=True), -200.0)  # no denormals (slow); e^-200 ~ 0
        logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        per = -(target * logp).sum(1) + 0.5 * lam_h * (h**2).sum(1)
        value = float((weight * per).sum() + (0.5 * lam_w * (w**2).sum() if learned else 0.0))
        return value, np.exp(logp) - target

    previous, steps = np.inf, 0
    for steps in range(1, int(cfg.max_steps) + 1):
        value, dlogits = loss_and_dlogits()
        grad_w = (pi * dlogits).T @ h + lam_w * w
        h -= lr * (dlogits @ w + lam_h * h)  # the per-example gradient (the group's gradient divided by pi)
        if learned:
            w -= lr * grad_w
        if steps % 200 == 0:
            if abs(previous - value) <= float(cfg.tol) * max(abs(value), 1e-12):
                break
            previous = value
    return measure(k, w, h, a, b, lam, weight) | {"steps": steps, "loss": loss_and_dlogits()[0]}


def class_means(k: int, h: np.ndarray, a, b, lam, weight) -> np.ndarray:
    """Mean feature of the inputs whose dominant class is k (lambda >= 1/2: a, else b), weighted by frequency."""
    dominant = np.where(lam >= 0.5, a, b)
    means = np.zeros((k, h.shape[1]))
    for c in range(k):
        sel = dominant == c
        means[c] = (weight[sel, None] * h[sel]).sum(0) / weight[sel].sum()
    return means


def measure(k: int, w: np.ndarray, h: np.ndarray, a, b, lam, weight) -> dict:
    minority = np.arange(k // 2, k)
    means = class_means(k, h, a, b, lam, weight)
    centred = means - means.mean(0)
    pure_w = w[:k]
    return {"minority_w_cos": mean_pairwise_cosine(pure_w[minority]),
            "minority_mean_cos": mean_pairwise_cosine(centred[minority]),
            "majority_w_cos": mean_pairwise_cosine(pure_w[: k // 2]),
            "w_norm_ratio": float(np.linalg.norm(pure_w[minority], axis=1).mean()
                                  / np.linalg.norm(pure_w[: k // 2], axis=1).mean()),
            "w_gram": _gram(pure_w), "mean_gram": _gram(centred)}


def _gram(vectors: np.ndarray) -> np.ndarray:
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return unit @ unit.T

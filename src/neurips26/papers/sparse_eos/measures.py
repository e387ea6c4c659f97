"""The stability-based quantities and the patch-geometry diagnostics (numpy, on the training data or patches).

Stability (below the EoS) constrains a data-dependent weighted path norm (Qiao et al. 2024 in 1-D; Liang et al. 2025
"neural shattering" for d > 1; arXiv 2603.04807 for patches). For a neuron relu(w . p - b) with direction u = w/|w| and
threshold t = b/|w|, on the empirical distribution of the points p it sees (inputs for fc; the patches P_j x_i of its
position for lc; the whole patch multiset for conv):

    g~(u, t) = P(u.p > t)^2 * E[u.p - t | u.p > t] * sqrt(1 + |E[p | u.p > t]|^2)
    g(u, t)  = min(g~(u, t), g~(-u, -t))
    WPN      = sum_k |v_k| |w_k| g(u_k, t_k)             (per lc position and per shared conv neuron, summed over k)
    budget   = 1/eta - 1/2 + (R + 1) sqrt(2 L_train)      (R = max |p|; a stable minimum has WPN <= budget)

A neuron that is active on few points (small P) has a small g: the constraint hardly limits its norm. That is the
"rarely active, high-norm neuron" through which a stable net memorises noise on high-dimensional spheres.
"""

from __future__ import annotations

import numpy as np


def g_tilde(points: np.ndarray, u: np.ndarray, t: np.ndarray) -> np.ndarray:
    """g~(u_k, t_k) for K neurons at once: points (N, r), u (K, r) unit rows, t (K,)."""
    proj = points @ u.T - t                                      # (N, K)
    active = proj > 0
    p = active.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        margin = np.where(active, proj, 0.0).sum(axis=0) / active.sum(axis=0)
        centre = (active.T.astype(float) @ points) / active.sum(axis=0)[:, None]
    out = p**2 * margin * np.sqrt(1.0 + (centre**2).sum(axis=1))
    return np.where(p > 0, out, 0.0)


def g_weight(points: np.ndarray, u: np.ndarray, t: np.ndarray) -> np.ndarray:
    return np.minimum(g_tilde(points, u, t), g_tilde(points, -u, -t))


def directions(w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    norm = np.linalg.norm(w, axis=1)
    safe = np.where(norm > 0, norm, 1.0)
    return w / safe[:, None], b / safe, norm


def neuron_weights(w, b, v, position, patch_sets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per neuron: g, path weight |v||w| and active fraction, each on the points that neuron sees.
    patch_sets: {position: (N, r) points}; position -1 (fc, conv) is the whole input set / patch multiset."""
    u, t, norm = directions(w, b)
    g, act = np.zeros(len(w)), np.zeros(len(w))
    for pos in np.unique(position):
        sel = position == pos
        pts = patch_sets[int(pos)]
        g[sel] = g_weight(pts, u[sel], t[sel])
        act[sel] = (pts @ u[sel].T - t[sel] > 0).mean(axis=0)
    return g, np.abs(v) * norm, act


def stability_budget(eta: float, train_loss: float, radius: float) -> float:
    return 1.0 / eta - 0.5 + (radius + 1.0) * np.sqrt(2.0 * train_loss)


def silent_high_norm(path: np.ndarray, active: np.ndarray, max_active: float, norm_quantile: float) -> int:
    """Neurons active on at most `max_active` of their points whose |v||w| is above the `norm_quantile` of all neurons."""
    if len(path) == 0:
        return 0
    return int(((active <= max_active) & (active > 0) & (path >= np.quantile(path, norm_quantile))).sum())


def participation_ratio(patches: np.ndarray) -> float:
    """(sum lambda)^2 / sum lambda^2 of the covariance of the (centred) patch collection: r for isotropic patches,
    k for a rank-k collection with equal variances, near 1 when one direction carries the variance."""
    lam = np.clip(np.linalg.eigvalsh(np.cov(patches, rowvar=False)), 0.0, None)
    return float(lam.sum() ** 2 / (lam**2).sum())


def pca_spectrum(patches: np.ndarray) -> np.ndarray:
    """Eigenvalues of the patch covariance, descending, normalised to sum 1."""
    lam = np.clip(np.linalg.eigvalsh(np.cov(patches, rowvar=False)), 0.0, None)[::-1]
    return lam / lam.sum()


def coverage_curve(points: np.ndarray, fractions: np.ndarray, directions_count: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Activation coverage by random half-spaces: for random unit directions u and, for each target fraction q, the
    threshold t that leaves the top q of the points active, the mean g~(u, t). Small values at small q mean a neuron can
    cover few points at little cost under the stability constraint (the data are easy to shatter)."""
    pts = points / max(np.linalg.norm(points, axis=1).max(), 1e-12)           # radius 1, so datasets are comparable
    u = rng.standard_normal((directions_count, pts.shape[1]))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    proj = pts @ u.T
    out = []
    for q in fractions:
        t = np.quantile(proj, 1.0 - q, axis=0)
        out.append(float(np.mean(g_tilde(pts, u, t))))
    return np.asarray(out)

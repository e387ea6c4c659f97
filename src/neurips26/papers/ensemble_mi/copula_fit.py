"""The Gaussian copula fitted to a pool's calibration predictions, and the plateau it predicts (issue #69, item 4).

Fit: per member eps_m = its calibration error rate; members are grouped into clusters by average-linkage clustering of
the tetrachoric correlations of their error indicators (cut at `cut`, fixed in the config); per cluster rho_c is the
value whose model-implied joint error rate, summed over the cluster's pairs, equals the observed one (moment matching:
P(m and m' both err) = E_W[p_m(W) p_m'(W)], monotone in rho, solved by bisection). Prediction: draws from the fitted
copula (copula.sample), the same aggregator fit on as many simulated calibration rows as the real calibration half,
its accuracy over every member on fresh simulated rows: the plateau the floor predicts at the pool's size.
"""

from __future__ import annotations

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.special import ndtr, ndtri

from neurips26.papers.ensemble_mi import copula
from neurips26.papers.ensemble_mi.aggregator import PatternAggregator

EPS_CLIP = (0.005, 0.995)  # a member that is never (or always) wrong on calibration: Phi^-1 stays finite
RHO_MAX = 0.995


def joint_error(a_i: np.ndarray, a_j: np.ndarray, rho: float) -> np.ndarray:
    """P(both err) for members with thresholds a = Phi^-1(eps) and latent correlation rho (1-D quadrature over W)."""
    s, r = np.sqrt(1.0 - rho), np.sqrt(rho)
    p_i = ndtr((a_i[:, None] - r * copula.GRID[None, :]) / s)
    p_j = ndtr((a_j[:, None] - r * copula.GRID[None, :]) / s)
    return (p_i * p_j) @ copula.GRID_W


def pair_rho(eps_i: float, eps_j: float, both: float) -> float:
    """The tetrachoric correlation of two members' error indicators (bisection on rho in [0, RHO_MAX]; negative
    association clipped to 0: the copula has no negative correlation)."""
    return fit_rho(np.array([eps_i]), np.array([eps_j]), both)


def fit_rho(eps_i: np.ndarray, eps_j: np.ndarray, observed_joint_sum: float) -> float:
    """rho with sum over pairs of P(both err | rho) = observed_joint_sum (bisection; the sum rises with rho)."""
    a_i, a_j = ndtri(np.clip(eps_i, *EPS_CLIP)), ndtri(np.clip(eps_j, *EPS_CLIP))
    lo, hi = 0.0, RHO_MAX
    if joint_error(a_i, a_j, lo).sum() >= observed_joint_sum:
        return 0.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if joint_error(a_i, a_j, mid).sum() < observed_joint_sum else (lo, mid)
    return 0.5 * (lo + hi)


def clusters(errors: np.ndarray, eps: np.ndarray, cut: float) -> np.ndarray:
    """Cluster label per member: average linkage on 1 - pairwise tetrachoric correlation, cut at distance 1 - cut."""
    m = errors.shape[1]
    if m == 1:
        return np.zeros(1, dtype=int)
    both = (errors.T.astype(float) @ errors) / len(errors)
    dist = [1.0 - pair_rho(eps[i], eps[j], both[i, j]) for i in range(m) for j in range(i + 1, m)]
    return fcluster(linkage(np.array(dist), "average"), t=1.0 - cut, criterion="distance") - 1


def fit(y: np.ndarray, preds: np.ndarray, n_classes: int, cut: float, groups: np.ndarray | None = None) -> copula.Pool:
    """The copula fitted to calibration predictions: per-member eps, clusters (`groups` if given, else `clusters`),
    per-cluster rho by moment matching of the pairwise joint error rates (a singleton cluster gets rho = 0)."""
    errors = (preds != y[:, None]).astype(np.int64)
    eps = np.clip(errors.mean(0), *EPS_CLIP)
    label = clusters(errors, eps, cut) if groups is None else np.asarray(groups)
    both = (errors.T.astype(float) @ errors) / len(errors)
    rho = []
    for c in range(int(label.max()) + 1):
        inside = np.flatnonzero(label == c)
        pairs = [(i, j) for n, i in enumerate(inside) for j in inside[n + 1 :]]
        if not pairs:
            rho.append(0.0)
            continue
        i, j = np.array(pairs).T
        rho.append(fit_rho(eps[i], eps[j], float(both[i, j].sum())))
    return copula.Pool(eps, label.astype(int), np.array(rho), n_classes)


def predicted_plateau(
    pool: copula.Pool, n_cal: int, n_test: int, alpha: float, rng: np.random.Generator, independent: bool = False
) -> float:
    """Accuracy of the aggregator over every member of the fitted copula (fit on n_cal simulated rows, judged on
    n_test): the plateau the floor predicts at the pool's size; `independent` sets every rho to 0 (no floor)."""
    if independent:
        pool = copula.Pool(pool.eps, pool.cluster, np.zeros_like(pool.rho), pool.n_classes)
    yc, pc = copula.sample(pool, n_cal, rng)
    yt, pt = copula.sample(pool, n_test, rng)
    return float((PatternAggregator(pool.n_classes, alpha).fit(yc, pc).predict(pt) == yt).mean())


def bootstrap_se(
    y: np.ndarray, preds: np.ndarray, n_classes: int, groups: np.ndarray, n_boot: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap (over rows) standard errors of the fitted eps per member and rho per cluster, clusters held fixed."""
    fits = [
        fit(y[rows], preds[rows], n_classes, 0.0, groups)
        for rows in (rng.integers(0, len(y), len(y)) for _ in range(n_boot))
    ]
    return np.std([f.eps for f in fits], axis=0, ddof=1), np.std([f.rho for f in fits], axis=0, ddof=1)

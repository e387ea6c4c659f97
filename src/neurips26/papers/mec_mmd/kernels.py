"""Gaussian-kernel sums, blockwise: memory stays bounded (a few MB per block) for any N, accumulation is float64."""

from __future__ import annotations

import numpy as np

BLOCK_ELEMS = 1 << 21  # entries of one kernel block (16 MB of float64); rows per block = min(2048, BLOCK_ELEMS // cols)
MAX_BLOCK_ROWS = 2048


def sq_dists(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared distances by coordinate differences (not |a|^2+|b|^2-2ab): exact zeros on the diagonal, no cancellation."""
    out = np.zeros((a.shape[0], b.shape[0]))
    for k in range(a.shape[1]):
        diff = a[:, k, None] - b[None, :, k]
        out += diff * diff
    return out


def gram(a: np.ndarray, b: np.ndarray, h: float) -> np.ndarray:
    """k(a_i, b_j) = exp(-|a_i - b_j|^2 / (2 h^2)) as a full matrix: only for small sets (an audit, a test)."""
    d = sq_dists(a, b)
    d *= -0.5 / (h * h)
    return np.exp(d, out=d)


def row_blocks(n_rows: int, n_cols: int):
    step = max(1, min(MAX_BLOCK_ROWS, BLOCK_ELEMS // max(n_cols, 1)))
    for start in range(0, n_rows, step):
        yield start, min(start + step, n_rows)


def row_sums(a: np.ndarray, b: np.ndarray, h: float) -> np.ndarray:
    """sum_j k(a_i, b_j) for every i, one row block at a time."""
    out = np.empty(a.shape[0])
    for lo, hi in row_blocks(a.shape[0], b.shape[0]):
        out[lo:hi] = gram(a[lo:hi], b, h).sum(axis=1)
    return out


def cross_mean(a: np.ndarray, b: np.ndarray, h: float) -> float:
    """mean_{i,j} k(a_i, b_j)."""
    return float(row_sums(a, b, h).sum() / (a.shape[0] * b.shape[0]))


def pair_sum(a: np.ndarray, h: float) -> float:
    """sum over ordered distinct pairs i != j of k(a_i, a_j); symmetry halves the work (blocks on and above the diagonal)."""
    total = 0.0
    for lo, hi in row_blocks(a.shape[0], a.shape[0]):
        diag = gram(a[lo:hi], a[lo:hi], h)
        total += diag.sum() - np.trace(diag)
        if hi < a.shape[0]:
            total += 2.0 * gram(a[lo:hi], a[hi:], h).sum()
    return float(total)


def u_mean(a: np.ndarray, h: float) -> float:
    """U-statistic mean over distinct pairs, U[k(a, a')]."""
    n = a.shape[0]
    return pair_sum(a, h) / (n * (n - 1))


def median_bandwidth(y: np.ndarray, max_points: int = 1000) -> float:
    """Median heuristic on the noisy sample only (so h never depends on the audit); the first max_points units suffice."""
    sub = y[:max_points]
    d = sq_dists(sub, sub)[np.triu_indices(sub.shape[0], k=1)]
    return float(np.sqrt(np.median(d)))

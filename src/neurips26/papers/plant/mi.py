"""Mutual information between binary token presence T and label presence L over documents (the 2x2 joint), and the
normalised score I / (H_T + H_L - I) of PLANT's info_gain (xcube `l2r/data/info_gain.py`)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def presence(ids: np.ndarray, mask: np.ndarray, vocab: int) -> sp.csr_matrix:
    """(N, V) 0/1: whether token v occurs in document n (padding excluded)."""
    rows = np.repeat(np.arange(ids.shape[0]), ids.shape[1])[mask.ravel()]
    X = sp.csr_matrix((np.ones(len(rows), dtype=np.float64), (rows, ids.ravel()[mask.ravel()])),
                      shape=(ids.shape[0], vocab))
    X.data[:] = 1.0  # duplicates were summed
    return X


def _plogp(p: np.ndarray) -> np.ndarray:
    return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def mutual_information(X: sp.csr_matrix, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(I, normalised I) as (V, L) arrays, in nats; X (N, V) token presence, Y (N, L) label presence."""
    n = X.shape[0]
    n11 = np.asarray((X.T @ sp.csr_matrix(Y.astype(np.float64))).todense())
    nt = np.asarray(X.sum(0)).ravel()[:, None]
    nl = Y.sum(0, dtype=np.float64)[None, :]
    cells = [n11, nt - n11, nl - n11, n - nt - nl + n11]
    margins = [(nt, nl), (nt, n - nl), (n - nt, nl), (n - nt, n - nl)]
    mi = np.zeros_like(n11)
    for c, (a, b) in zip(cells, margins):
        p, q = c / n, (a / n) * (b / n)
        mi += np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0) / np.where(q > 0, q, 1.0)), 0.0)
    h_t = -(_plogp(nt / n) + _plogp(1 - nt / n))
    h_l = -(_plogp(nl / n) + _plogp(1 - nl / n))
    denom = h_t + h_l - mi
    mi = np.maximum(mi, 0.0)
    return mi, np.where(denom > 1e-12, mi / np.where(denom > 1e-12, denom, 1.0), 0.0)

"""The simplex ETF, Mixup targets and the Mixed-Singleton (MS) target rule.

MS classifier: K pure classes + K (K - 1) / 2 pair singletons, M = K (K + 1) / 2 outputs whose weights are a fixed simplex
ETF. A mixed example (a, b, lambda) (lambda the weight of a) gets the one-hot target of the pair singleton {a, b} when
lambda lies in [delta, 1 - delta], else of its dominant class (a when lambda > 1 - delta, b when lambda < delta); a pure
pair (a = a) always gets class a. At test time the prediction is the argmax over the K pure-class logits.
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.mixup_minority.samplers import label_pairs


def simplex_etf(classes: int, dim: int, seed: int = 0) -> np.ndarray:
    """classes x dim unit vectors with pairwise cosine -1 / (classes - 1) (needs dim >= classes - 1): the centred
    standard basis of R^classes in Helmert coordinates (an orthonormal basis of the sum-zero subspace, closed form, so
    that 5,050 vertices need no QR), mapped into R^dim by a seeded random partial isometry when dim > classes - 1."""
    if dim < classes - 1:
        raise ValueError(f"a simplex ETF of {classes} vectors needs dim >= {classes - 1}, got {dim}")
    k = np.arange(1, classes, dtype=np.float64)[:, None]  # Helmert row k: k ones, then -k, then zeros
    cols = np.arange(classes)[None, :]
    helmert = (np.where(cols < k, 1.0, 0.0) - np.where(cols == k, k, 0.0)) / np.sqrt(k * (k + 1))
    coords = helmert.T  # vertex i = e_i - 1/classes in the sum-zero basis: (classes, classes - 1)
    if dim > classes - 1:
        rotation, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, classes - 1)))
        coords = coords @ rotation.T
    return coords / np.linalg.norm(coords, axis=1, keepdims=True)


def pair_index_matrix(classes: int) -> np.ndarray:
    """K x K matrix of MS output indices: [a, a] = a, [a, b] = [b, a] = index of the singleton {a, b}."""
    a, b = label_pairs(classes)
    index = np.zeros((classes, classes), dtype=np.int64)
    index[a, b] = np.arange(len(a))
    index[b, a] = np.arange(len(a))
    return index


def ms_targets(a: np.ndarray, b: np.ndarray, lam: np.ndarray, delta: float, classes: int) -> np.ndarray:
    """MS target index of each mixed example: the pair singleton when delta <= lambda <= 1 - delta (and a != b),
    else the dominant class."""
    a, b, lam = np.asarray(a), np.asarray(b), np.asarray(lam, dtype=np.float64)
    dominant = np.where(lam >= 0.5, a, b)
    middle = (lam >= delta) & (lam <= 1.0 - delta) & (a != b)
    return np.where(middle, pair_index_matrix(classes)[a, b], dominant)


def mixup_targets(a: np.ndarray, b: np.ndarray, lam: np.ndarray, classes: int) -> np.ndarray:
    """Soft Mixup targets lambda e_a + (1 - lambda) e_b (rows sum to 1)."""
    out = np.zeros((len(a), classes))
    np.add.at(out, (np.arange(len(a)), a), lam)
    np.add.at(out, (np.arange(len(a)), b), 1.0 - np.asarray(lam))
    return out


def mean_pairwise_cosine(vectors: np.ndarray) -> float:
    """Mean cosine over the distinct pairs of rows."""
    v = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    gram = v @ v.T
    m = len(v)
    return float((gram.sum() - np.trace(gram)) / (m * (m - 1)))

"""Two-sample tests between two groups measured by different devices.

Permutation tests (naive on Y, oracle on X, audit-only on X_A) use exchangeability, which holds for X under H0 but not for
Y from two devices. The MEC test therefore calibrates by bootstrap: each group's debiased mean embedding is
mu_g = mean_i psi_i, psi_i = k(Y_i, .) + (N/n) 1[i in A] (k(X_i, .) - k(Y_i, .)); the statistic is ||mu_1 - mu_2||^2
(V-form, c' K c on the Gram matrix of all points) and its null law is approximated by resampling units within each group,
||(mu*_1 - mu_1) - (mu*_2 - mu_2)||^2, vectorised over B replicates as rowsum((C K) o C).
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.mec_mmd import kernels


def _quadratic_forms(coefs: np.ndarray, k: np.ndarray) -> np.ndarray:
    """c_b' K c_b for every row c_b of coefs."""
    return np.einsum("bp,bp->b", coefs @ k, coefs)


def _p_value(observed: float, null: np.ndarray) -> float:
    return float((1 + np.count_nonzero(null >= observed)) / (null.size + 1))


def permutation_test(a: np.ndarray, b: np.ndarray, h: float, rng: np.random.Generator, permutations: int) -> float:
    """p-value of the MMD^2 (V-form) permutation test; valid when the pooled units are exchangeable under H0."""
    k = kernels.gram(np.vstack([a, b]), np.vstack([a, b]), h)
    signs = np.concatenate([np.full(a.shape[0], 1.0 / a.shape[0]), np.full(b.shape[0], -1.0 / b.shape[0])])
    shuffled = np.stack([rng.permutation(signs) for _ in range(permutations)])
    return _p_value(float(signs @ k @ signs), _quadratic_forms(shuffled, k))


def _group_layout(y: np.ndarray, idx: np.ndarray):
    """psi coefficients of one group over its points [Y (N), X_A (n)]: row i is psi_i."""
    N, n = y.shape[0], idx.shape[0]
    on_y = np.ones(N)
    on_y[idx] -= N / n
    on_x = np.zeros(N)
    on_x[idx] = N / n
    return on_y, on_x


def mec_bootstrap_test(groups, h: float, rng: np.random.Generator, bootstrap: int) -> float:
    """p-value of the MEC two-sample test; groups = [(x_audit, y, idx), (x_audit, y, idx)] (x_audit rows follow idx)."""
    points = np.vstack([m for x_a, y, _ in groups for m in (y, x_a)])
    k = kernels.gram(points, points, h)
    centre, deviations = [], []
    for sign, (_, y, idx) in zip((1.0, -1.0), groups):
        N = y.shape[0]
        on_y, on_x = _group_layout(y, idx)
        centre.append(sign * np.concatenate([on_y, on_x[idx]]) / N)
        counts = np.stack([np.bincount(rng.integers(0, N, N), minlength=N) for _ in range(bootstrap)]) - 1.0
        deviations.append(sign * np.hstack([counts * on_y, counts[:, idx] * on_x[idx]]) / N)
    c = np.concatenate(centre)
    return _p_value(float(c @ k @ c), _quadratic_forms(np.hstack(deviations), k))

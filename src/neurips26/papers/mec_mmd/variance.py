"""Exact variance of a degree-2 U-statistic over an audit drawn by simple random sampling without replacement (SRSWOR).

With a symmetric kernel phi on the N units and U_A = mean of phi over the C(n,2) pairs inside A:
    E[U_A^2] = a(n),  a(m) = [C(m,2) mu2 + m(m-1)(m-2) mu3 + C(m,2) C(m-2,2) mu4] / C(m,2)^2
because the pairs of pairs inside A coincide, share one unit or are disjoint, and each configuration lies inside A with
probability n^(u)/N^(u) (u = units it spans, x^(u) the falling factorial), which turns the population counts into the
sample counts. mu2 = mean of phi^2 over pairs, mu3 = mean of phi_ij phi_ik over ordered distinct triples, mu4 = mean of
phi_ij phi_kl over ordered distinct quadruples. The population value is U_N, and U_N^2 = a(N) by the same expansion, so
    Var(U_A) = a(n) - a(N).
Each mu is a mean over distinct index tuples, so the same means computed inside A are unbiased for them under SRSWOR:
that is the plug-in estimate. Everything is bilinear, so for phi = phi_X - w phi_Y the variance is quadratic in w.
"""

from __future__ import annotations

import numpy as np


def a_coefficient(m: int, mu2: float, mu3: float, mu4: float) -> float:
    pairs = m * (m - 1) / 2
    disjoint = pairs * (m - 2) * (m - 3) / 2
    terms = [(pairs, mu2), (m * (m - 1) * (m - 2), mu3), (disjoint, mu4)]
    return sum(count * mu for count, mu in terms if count) / pairs**2


def srswor_variance(n: int, N: int, mu) -> float:
    """Var(U_A) for |A| = n drawn from N units; mu = (mu2, mu3, mu4). Zero when n = N."""
    return a_coefficient(n, *mu) - a_coefficient(N, *mu)


def phi_matrix(k: np.ndarray, f: np.ndarray) -> np.ndarray:
    """phi_ij = k_ij - f_i - f_j with a zero diagonal (only distinct pairs enter any moment)."""
    phi = k - f[:, None] - f[None, :]
    np.fill_diagonal(phi, 0.0)
    return phi




def moments_from_sums(m: int, s2: float, ra: np.ndarray, rb: np.ndarray) -> tuple[float, float, float]:
    """(mu2, mu3, mu4) of the bilinear form from S2 and row sums over m units.

    S3 = sum_i sum_{j!=k} pa_ij pb_ik = ra.rb - S2; S4 (disjoint ordered pairs) = Ta Tb - 2 S2 - 4 S3, since a pair of
    ordered pairs either coincides (2 orientations) or shares one unit (4 ways) or is disjoint.
    """
    s3 = float(ra @ rb) - s2
    s4 = float(ra.sum() * rb.sum()) - 2.0 * s2 - 4.0 * s3
    triples, quads = m * (m - 1) * (m - 2), m * (m - 1) * (m - 2) * (m - 3)
    # fewer than 3 (4) units: mu3 (mu4) is not estimable, NaN; a(m) then never needs it for this m
    return s2 / (m * (m - 1)), s3 / triples if triples else np.nan, s4 / quads if quads else np.nan


def moments(pa: np.ndarray, pb: np.ndarray) -> tuple[float, float, float]:
    """(mu2, mu3, mu4) of phi_a, phi_b (n x n, zero diagonals) in O(n^2)."""
    return moments_from_sums(pa.shape[0], float(np.einsum("ij,ij->", pa, pb)), pa.sum(axis=1), pb.sum(axis=1))


def quadratic_in_w(n: int, N: int, mu_xx, mu_xy, mu_yy) -> tuple[float, float, float]:
    """Var(w) = v_xx - 2 w v_xy + w^2 v_yy for phi = phi_X - w phi_Y; returns (v_xx, v_xy, v_yy)."""
    return srswor_variance(n, N, mu_xx), srswor_variance(n, N, mu_xy), srswor_variance(n, N, mu_yy)


def variance_at(w: float, v) -> float:
    return v[0] - 2.0 * w * v[1] + w * w * v[2]


def optimal_weight(v, lo: float = 0.0, hi: float = 1.0) -> float:
    """argmin_w Var(w) = v_xy / v_yy, clipped to [lo, hi] (PPI++ power tuning: w=0 is audit-only, w=1 plain MEC)."""
    if v[2] <= 0:
        return hi
    return float(np.clip(v[1] / v[2], lo, hi))

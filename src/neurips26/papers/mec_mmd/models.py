"""The model side of the MMD: a sample Z_1..Z_M, or a Gaussian Q whose kernel mean embedding has a closed form.

Both expose `mean_kernel(points)` = E_Z k(p, Z) (sample mean over Z, or exact) and `self_term` = U_M[k(Z, Z')] (or exact
E k(Z, Z')), which is all the estimators need from the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurips26.papers.mec_mmd import kernels


def gaussian_pair_expectation(m1, s1, m2, s2, h: float) -> float:
    """E k(U, V), U ~ N(m1, S1), V ~ N(m2, S2) independent: h^d det(C)^-1/2 exp(-1/2 D' C^-1 D), C = h^2 I + S1 + S2.

    Why: k = (2 pi h^2)^{d/2} N(U - V; 0, h^2 I) and U - V ~ N(m1 - m2, S1 + S2), so the expectation is a Gaussian density.
    """
    m1, m2 = np.asarray(m1, float), np.asarray(m2, float)
    c = h * h * np.eye(m1.size) + np.asarray(s1, float) + np.asarray(s2, float)
    diff = m1 - m2
    return float(h**m1.size / np.sqrt(np.linalg.det(c)) * np.exp(-0.5 * diff @ np.linalg.solve(c, diff)))


def mixture_kernel_mean(p, q, h: float) -> float:
    """E k(U, V) for U ~ mixture p, V ~ mixture q (independent); a mixture is a list of (weight, mean, covariance)."""
    return sum(wa * wb * gaussian_pair_expectation(ma, sa, mb, sb, h) for wa, ma, sa in p for wb, mb, sb in q)


def population_mmd2(p, q, h: float) -> float:
    """MMD^2(P, Q) = E k(X, X') + E k(Z, Z') - 2 E k(X, Z), exact for Gaussian mixtures."""
    return mixture_kernel_mean(p, p, h) + mixture_kernel_mean(q, q, h) - 2.0 * mixture_kernel_mean(p, q, h)


@dataclass(frozen=True)
class SampleModel:
    z: np.ndarray
    h: float

    def mean_kernel(self, points: np.ndarray) -> np.ndarray:
        return kernels.row_sums(points, self.z, self.h) / self.z.shape[0]

    @property
    def self_term(self) -> float:
        return kernels.u_mean(self.z, self.h)


@dataclass(frozen=True)
class GaussianModel:
    """Q = N(mean, cov) with the kernel integrated out exactly (the M -> infinity limit of SampleModel)."""

    mean: np.ndarray
    cov: np.ndarray
    h: float

    def mean_kernel(self, points: np.ndarray) -> np.ndarray:
        d = self.mean.size
        c = self.h**2 * np.eye(d) + self.cov
        diff = points - self.mean
        quad = np.einsum("ij,ij->i", diff @ np.linalg.inv(c), diff)
        return self.h**d / np.sqrt(np.linalg.det(c)) * np.exp(-0.5 * quad)

    @property
    def self_term(self) -> float:
        return gaussian_pair_expectation(self.mean, self.cov, self.mean, self.cov, self.h)

    @property
    def as_mixture(self):
        return [(1.0, self.mean, self.cov)]

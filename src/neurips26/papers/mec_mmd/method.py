"""The MEC-MMD^2 estimator: noisy kernel sums over all N units, corrected by the audited units where X is revealed.

    T_XX = w U_N[k(Y,Y')] + U_A[k(X,X') - w k(Y,Y')]
    T_XZ = w mean_{i,j} k(Y_i,Z_j) + mean_{i in A, j}[k(X_i,Z_j) - w k(Y_i,Z_j)]
    MEC  = T_XX - 2 T_XZ + U_M[k(Z,Z')]            (unclipped; w = 1 is the plain estimator)
Given the data, E_A U_A[g] = U_N[g] and E_A mean_A f = mean_N f under SRSWOR, so E_A MEC = the oracle U-statistic
MMD^2_u(X, Z) exactly, for every w. The audit-random part is U_A[phi], phi_ij = g_ij - f_i - f_j with g = kXX - w kYY and
f_i = mean_j [k(X_i,Z_j) - w k(Y_i,Z_j)] (mean_A f = U_A[(f_i + f_j) / 2]); its variance is in variance.py.
Total variance (law of total variance): Var(MEC) = Var_data(oracle MMD^2_u) + E_data[Var_A(MEC | data)], and to first
order Var_A ~ 4 (1/n - 1/N) sigma_1^2 with sigma_1^2 the variance of the projection of phi.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neurips26.papers.mec_mmd import kernels, variance


@dataclass(frozen=True)
class NoisyParts:
    """Audit-free pieces, computed once per dataset: U_N[k(Y,Y')], E_Z k(Y_i, Z) per unit, and the model's self term."""

    u_yy: float
    fy: np.ndarray
    model_self: float

    @property
    def N(self) -> int:
        return self.fy.shape[0]


@dataclass(frozen=True)
class AuditParts:
    """The audited units: their index, k(X_A, X_A), k(Y_A, Y_A) and E_Z k(X_i, Z) for i in A."""

    idx: np.ndarray
    kxx: np.ndarray
    kyy: np.ndarray
    fx: np.ndarray

    @property
    def n(self) -> int:
        return self.idx.shape[0]


@dataclass(frozen=True)
class MecResult:
    estimate: float
    weight: float
    plugin_variance: float


def noisy_parts(y: np.ndarray, model, h: float) -> NoisyParts:
    return NoisyParts(kernels.u_mean(y, h), model.mean_kernel(y), model.self_term)


def audit_parts(x_audit: np.ndarray, y: np.ndarray, idx: np.ndarray, model, h: float) -> AuditParts:
    return AuditParts(idx, kernels.gram(x_audit, x_audit, h), kernels.gram(y[idx], y[idx], h), model.mean_kernel(x_audit))


def _u(k: np.ndarray) -> float:
    n = k.shape[0]
    return float((k.sum() - np.trace(k)) / (n * (n - 1)))


def mec_estimate(noisy: NoisyParts, audit: AuditParts, w: float = 1.0) -> float:
    fy_a = noisy.fy[audit.idx]
    t_xx = w * noisy.u_yy + _u(audit.kxx) - w * _u(audit.kyy)
    t_xz = w * noisy.fy.mean() + audit.fx.mean() - w * fy_a.mean()
    return t_xx - 2.0 * t_xz + noisy.model_self


def plugin_coefficients(noisy: NoisyParts, audit: AuditParts) -> tuple[float, float, float]:
    """(v_xx, v_xy, v_yy) of the audit variance Var(w) = v_xx - 2 w v_xy + w^2 v_yy, from moments inside A only."""
    px = variance.phi_matrix(audit.kxx, audit.fx)
    py = variance.phi_matrix(audit.kyy, noisy.fy[audit.idx])
    mus = [variance.moments(a, b) for a, b in ((px, px), (px, py), (py, py))]
    return variance.quadratic_in_w(audit.n, noisy.N, *mus)


def mec_with_variance(noisy: NoisyParts, audit: AuditParts, w: float | str = 1.0) -> MecResult:
    """MEC at weight w (a number, or "optimal": the PPI++ weight minimising the plug-in variance), with that variance."""
    v = plugin_coefficients(noisy, audit)
    weight = variance.optimal_weight(v) if w == "optimal" else float(w)
    return MecResult(mec_estimate(noisy, audit, weight), weight, variance.variance_at(weight, v))


def mec_mmd2(x_audit: np.ndarray, y: np.ndarray, idx: np.ndarray, model, h: float, w: float | str = 1.0) -> MecResult:
    """MEC-MMD^2 from the audited X (rows aligned with idx), all noisy Y and the model (SampleModel or GaussianModel)."""
    return mec_with_variance(noisy_parts(y, model, h), audit_parts(x_audit, y, idx, model, h), w)


def exact_moments(x: np.ndarray, y: np.ndarray, fx: np.ndarray, fy: np.ndarray, h: float):
    """Population (all-X) moments ((mu2, mu3, mu4) for XX, XY, YY), blockwise over rows; with
    variance.quadratic_in_w(n, N, *moments) they give the exact conditional audit variance for any n and w."""
    N = x.shape[0]
    s2 = np.zeros(3)
    rx, ry = np.empty(N), np.empty(N)
    for lo, hi in kernels.row_blocks(N, N):
        px = kernels.gram(x[lo:hi], x, h) - fx[lo:hi, None] - fx[None, :]
        py = kernels.gram(y[lo:hi], y, h) - fy[lo:hi, None] - fy[None, :]
        rows = np.arange(lo, hi)
        px[rows - lo, rows] = 0.0
        py[rows - lo, rows] = 0.0
        s2 += [np.einsum("ij,ij->", px, px), np.einsum("ij,ij->", px, py), np.einsum("ij,ij->", py, py)]
        rx[lo:hi], ry[lo:hi] = px.sum(axis=1), py.sum(axis=1)
    return [variance.moments_from_sums(N, s, a, b) for s, a, b in zip(s2, (rx, rx, ry), (rx, ry, ry))]

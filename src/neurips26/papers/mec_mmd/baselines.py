"""Baseline estimators of MMD^2(P_X, Q): naive (noisy Y as if clean), audit-only (X_A), oracle (all X, unavailable in
practice), and regression calibration (fit E[X|Y] on the audit, plug X_hat = f(Y) in for every unit).
The deconvolution baselines (convMMD) only make sense as losses over a model family: see losses.py.
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.mec_mmd import kernels


def mmd2_u(sample: np.ndarray, model, h: float) -> float:
    """U-statistic MMD^2 between a sample and the model: U[k(S,S')] - 2 mean k(S, Z) + model self term."""
    return kernels.u_mean(sample, h) - 2.0 * float(model.mean_kernel(sample).mean()) + model.self_term


def naive(y: np.ndarray, model, h: float) -> float:
    return mmd2_u(y, model, h)


def audit_only(x_audit: np.ndarray, model, h: float) -> float:
    return mmd2_u(x_audit, model, h)


def oracle(x: np.ndarray, model, h: float) -> float:
    return mmd2_u(x, model, h)


def fit_calibration(x_audit: np.ndarray, y_audit: np.ndarray) -> np.ndarray:
    """Least-squares affine map E[X|Y] ~ [1, Y] B fitted on the audit; returns B ((d+1) x d)."""
    design = np.column_stack([np.ones(y_audit.shape[0]), y_audit])
    coef, *_ = np.linalg.lstsq(design, x_audit, rcond=None)
    return coef


def calibrate(y: np.ndarray, coef: np.ndarray) -> np.ndarray:
    return coef[0] + y @ coef[1:]


def regression_calibration(x_audit: np.ndarray, y: np.ndarray, idx: np.ndarray, model, h: float) -> float:
    return mmd2_u(calibrate(y, fit_calibration(x_audit, y[idx])), model, h)

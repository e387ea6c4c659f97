"""Real-world validation stand-in: a cohort drawn from the SCM, and backdoor-adjusted effect estimates on it
(regression of Y on X and X's parents: OLS for continuous Y, Poisson log-link for binary Y, so log RR)."""

from __future__ import annotations

import numpy as np


def poisson_log_link(design: np.ndarray, y: np.ndarray, iterations: int = 50) -> np.ndarray:
    """IRLS for E[y] = exp(design @ b) (a log-binomial working model with Poisson variance)."""
    b = np.zeros(design.shape[1])
    b[0] = np.log(max(y.mean(), 1e-6))
    for _ in range(iterations):
        mu = np.exp(design @ b)
        step = np.linalg.solve(design.T @ (mu[:, None] * design), design.T @ (y - mu))
        b += step
        if np.abs(step).max() < 1e-10:
            break
    return b


def adjusted_effect(data: dict, x: str, y: str, adjust: list[str], binary: bool) -> float:
    return adjusted_effect_se(data, x, y, adjust, binary)[0]


def adjusted_effect_se(data: dict, x: str, y: str, adjust: list[str], binary: bool,
                       rows: np.ndarray | None = None) -> tuple[float, float]:
    """The coefficient of x (log RR for binary y, else the mean difference per unit of x) and its model-based SE
    (OLS: sigma^2 (X'X)^-1; Poisson: (X' W X)^-1, conservative for a binary outcome). `rows`: a subset (a subgroup)."""
    rows = np.ones(len(data[x]), bool) if rows is None else rows
    design = np.column_stack([np.ones(rows.sum()), data[x][rows]] + [data[a][rows] for a in adjust])
    target = data[y][rows]
    if binary:
        b = poisson_log_link(design, target)
        info = design.T @ (np.exp(design @ b)[:, None] * design)
        return float(b[1]), float(np.sqrt(np.linalg.inv(info)[1, 1]))
    b, *_ = np.linalg.lstsq(design, target, rcond=None)
    resid = target - design @ b
    sigma2 = resid @ resid / max(len(target) - design.shape[1], 1)
    return float(b[1]), float(np.sqrt(sigma2 * np.linalg.inv(design.T @ design)[1, 1]))

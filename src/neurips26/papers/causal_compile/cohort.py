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
    columns = [np.ones_like(data[x]), data[x]] + [data[a] for a in adjust]
    design = np.column_stack(columns)
    if binary:
        return float(poisson_log_link(design, data[y])[1])
    return float(np.linalg.lstsq(design, data[y], rcond=None)[0][1])

"""Trend criteria: Spearman's rank correlation between a grid variable and per-seed values pooled over seeds, with a
percentile bootstrap interval over the (x, y) pairs (scipy.stats.bootstrap, paired resampling). A trend holds when the
interval lies above 0, fails when it lies below 0, and is inconclusive when it straddles 0 or there are too few
points -- never strict monotonicity of the seed means."""

from __future__ import annotations

import numpy as np
from scipy.stats import bootstrap, spearmanr

MIN_POINTS = 5


def _rho(x, y) -> float:
    if len(np.unique(x)) < 2 or len(np.unique(y)) < 2:
        return 0.0
    return float(spearmanr(x, y)[0])


def spearman_interval(x, y, draws: int = 2000, seed: int = 0, level: float = 0.95) -> dict:
    """{'rho', 'lo', 'hi', 'points'}; NaN interval with fewer than MIN_POINTS finite pairs."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out = {"rho": float("nan"), "lo": float("nan"), "hi": float("nan"), "points": int(len(x))}
    if len(x) < MIN_POINTS:
        return out
    res = bootstrap(
        (x, y),
        lambda a, b: _rho(a, b),
        paired=True,
        vectorized=False,
        n_resamples=draws,
        confidence_level=level,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    out.update(rho=_rho(x, y), lo=float(res.confidence_interval.low), hi=float(res.confidence_interval.high))
    return out

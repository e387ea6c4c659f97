"""Is S flat? (issue #71 item 3): the least-squares slope of S over a final window of checkpoints with its t interval.
S is flat there iff the interval contains 0; a run still sharpening slowly has an interval above 0 and is never read as
a plateau. The same test is the stopping rule of the long design (grid.<arch>.flat_checkpoints): a run stops once its
last k checkpoints are flat (after flat_min_steps), else at the cap."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def final_slope(steps: np.ndarray, sharpness: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Least-squares slope of S on step over the given checkpoints (the late window) with its two-sided t interval
    (n - 2 df): (slope, lo, hi), NaN with fewer than 3 checkpoints. S is flat there iff lo <= 0 <= hi; a run still
    sharpening slowly has lo > 0 and is not read as a plateau (issue #71 item 3)."""
    x, y = np.asarray(steps, dtype=float), np.asarray(sharpness, dtype=float)
    if len(x) < 3 or np.ptp(x) <= 0:
        return float("nan"), float("nan"), float("nan")
    from scipy.special import stdtrit

    xc = x - x.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc**2).sum())
    resid = y - y.mean() - slope * xc
    se = float(np.sqrt((resid**2).sum() / (len(x) - 2) / (xc**2).sum()))
    half = float(stdtrit(len(x) - 2, 0.5 + level / 2)) * se
    return slope, slope - half, slope + half


def flat_stop(
    steps: Sequence[float], sharpness: Sequence[float], window: int | None, level: float = 0.95, min_step: float = 0.0
) -> bool:
    """The long design's stopping rule: True once the last `window` checkpoints (at or after min_step) are flat."""
    if window is None or len(steps) < window or steps[-1] < min_step:
        return False
    _, lo, hi = final_slope(np.asarray(steps[-window:]), np.asarray(sharpness[-window:]), level)
    return bool(np.isfinite(lo) and lo <= 0 <= hi)

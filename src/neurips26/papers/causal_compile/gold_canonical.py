"""Canonical value of a real-text effect statement (data/gold/causal_compile_heldout_protocol.md): the natural log of
its ratio, with the CI's log bounds. One function for the gold rows and the extractor's rows, so a labelled log value
is the function of the written numbers (tested)."""

from __future__ import annotations

import math


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) or x == "" else float(x)


def canonical(kind: str, estimate=None, ci_low=None, ci_high=None, arm_a=None, arm_b=None, direction=1):
    """(log_ratio, log_low, log_high); None where the statement gives no such number.

    ratio: ln(estimate) (direction -1: a ratio stated inverted, '6.67 times less likely'); percent_pair: ln(a / b);
    relative_reduction: the signed percent change r -> ln(1 + r / 100), its CI likewise."""
    est, lo, hi = _num(estimate), _num(ci_low), _num(ci_high)
    sign = -1.0 if _num(direction) == -1 else 1.0
    if kind == "percent_pair":
        a, b = _num(arm_a), _num(arm_b)
        return (math.log(a / b) if a and b else None), None, None
    if kind == "relative_reduction":
        est, lo, hi = (None if v is None else 1.0 + v / 100.0 for v in (est, lo, hi))
    if est is None or est <= 0:
        return None, None, None
    bounds = [None if v is None or v <= 0 else sign * math.log(v) for v in (lo, hi)]
    if sign < 0:
        bounds = bounds[::-1]
    return sign * math.log(est), bounds[0], bounds[1]

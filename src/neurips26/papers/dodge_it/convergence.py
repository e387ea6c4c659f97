"""The budget's convergence rule (issue #62 item 5), fixed on pilot seeds before the configured seeds ran.

A GRPO run has converged at iteration N when, for its training batches, the success rate and the simulator's collision
rate (SafeLIBERO's displacement rule) each moved by at most `TOLERANCE` points between the mean of iterations
N-9..N and the mean of iterations N-19..N-10. A budget is enough when every reward's run meets the rule at it. The same
rule is reported for the configured runs (`tables/convergence.csv`) so a reader sees whether default's budget met it.
"""

from __future__ import annotations

import pandas as pd

WINDOW = 10  # iterations per window (x 64 rollouts at default)
TOLERANCE = 5.0  # points: about 2.5 binomial standard errors of a 640-episode rate near 50 %
RATES = ("success", "collision_ref")


def drift(curve: pd.DataFrame, upto: int | None = None) -> dict[str, float]:
    """|mean(last WINDOW) - mean(previous WINDOW)| in points per rate, over iterations 1..upto (all when None); NaN
    when fewer than 2 WINDOW iterations exist."""
    d = curve.sort_values("iteration")
    if upto is not None:
        d = d[d["iteration"] <= upto]
    if len(d) < 2 * WINDOW:
        return {rate: float("nan") for rate in RATES}
    last, prev = d.iloc[-WINDOW:], d.iloc[-2 * WINDOW:-WINDOW]
    return {rate: float(100 * abs(last[rate].mean() - prev[rate].mean())) for rate in RATES}


def converged(curve: pd.DataFrame, upto: int | None = None) -> bool:
    """The rule for one run (False, not an error, when the run is too short to judge)."""
    values = drift(curve, upto)
    return all(v <= TOLERANCE for v in values.values())


def table(curves: pd.DataFrame) -> pd.DataFrame:
    """Per seed and reward kind: the drifts of the full run and whether it met the rule."""
    rows = []
    for (seed, kind), d in curves.groupby(["seed", "reward_kind"]):
        values = drift(d)
        rows.append({"seed": seed, "reward_kind": kind, "iterations": int(d["iteration"].max()),
                     **{f"drift_{rate}": v for rate, v in values.items()}, "converged": converged(d)})
    return pd.DataFrame(rows)

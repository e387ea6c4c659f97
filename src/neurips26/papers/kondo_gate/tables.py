"""Tables aggregated over seeds from the per-seed run CSVs (figures and claims read only these)."""

from __future__ import annotations

import pandas as pd

KEYS = ["task", "method", "keep_rate", "price"]


def _final(runs: pd.DataFrame) -> pd.DataFrame:
    return runs.sort_values("step").groupby([*KEYS, "seed"], dropna=False, sort=False).tail(1)


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    """Final quality and backward cost per task x method x keep rate (or price), with ratios to DG (rho = 1)."""
    final = _final(runs)
    out = final.groupby(KEYS, dropna=False, sort=False).agg(
        score=("score", "mean"), score_std=("score", "std"), seeds=("seed", "nunique"),
        backward_passes=("backward_passes", "mean"), backward_flops=("backward_flops", "mean")).reset_index()
    dg = out[out.method == "dg"].set_index("task")
    out["score_vs_dg"] = out.score / out.task.map(dg.score)
    out["backward_reduction_vs_dg"] = out.task.map(dg.backward_passes) / out.backward_passes
    return out.sort_values(KEYS).reset_index(drop=True)


def table_curves(runs: pd.DataFrame) -> pd.DataFrame:
    """Learning curves: mean score and backward passes over seeds at every evaluation step."""
    return (runs.groupby([*KEYS, "step"], dropna=False).agg(score=("score", "mean"),
                                                           backward_passes=("backward_passes", "mean"))
            .reset_index().sort_values([*KEYS, "step"]).reset_index(drop=True))


def table_bandit(runs: pd.DataFrame) -> pd.DataFrame:
    """Bandit gradient quality per estimator: mean over seeds of cosine, signal and perpendicular noise."""
    cols = ["kept_fraction", "cosine", "signal", "noise"]
    out = runs.groupby(["method", "keep_rate"], dropna=False).agg(
        **{c: (c, "mean") for c in cols}, cosine_std=("cosine", "std"), seeds=("seed", "nunique")).reset_index()
    return out.sort_values(["method", "keep_rate"]).reset_index(drop=True)


def table_wallclock(runs: pd.DataFrame) -> pd.DataFrame:
    """Training wall-clock seconds (not deterministic: reported beside backward passes, never used by a claim)."""
    return runs.groupby(KEYS, dropna=False).agg(wall_s=("wall_s", "mean")).reset_index()


TABLES = {"main": table_main, "curves": table_curves, "bandit": table_bandit}

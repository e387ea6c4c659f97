"""Aggregate the per-seed run CSVs over seeds (one row per cell; every number from the saved runs)."""

from __future__ import annotations

import pandas as pd

RUN_KEYS = ["experiment", "block", "source", "variant", "d", "arch", "r", "eta", "wd"]
RUN_VALUES = ["gap", "train_mse", "test_mse", "excess", "sharpness", "threshold", "stable", "converged", "steps", "wpn",
              "budget", "path_norm", "silent_high_norm", "dead", "neurons"]


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    """Sphere and image runs: seed mean of every measured value, the gap's seed sd, and the seed count."""
    runs = runs.copy()
    for col in ("block", "source", "variant"):
        runs[col] = runs[col].fillna("-") if col in runs else "-"
    runs["constraint_holds"] = runs["wpn"] <= runs["budget"]
    g = runs.groupby(RUN_KEYS, sort=False)
    out = g[RUN_VALUES + ["constraint_holds"]].mean()
    out["gap_sd"] = g["gap"].std(ddof=1)
    out["seeds"] = g.size()
    return out.reset_index()


def table_geometry(runs: pd.DataFrame) -> pd.DataFrame:
    """Participation ratio (with PR / r^2), PCA spectra and coverage curves, averaged over seeds."""
    g = runs.groupby(["measure", "source", "variant", "r", "dim", "x"], dropna=False, sort=False)["value"]
    out = g.agg(["mean", "std", "size"]).reset_index().rename(columns={"mean": "value", "std": "sd", "size": "seeds"})
    out["value_over_dim"] = out["value"] / out["dim"]
    return out

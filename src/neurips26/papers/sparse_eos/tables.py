"""Aggregate the per-seed run CSVs over seeds (one row per cell; every number from the saved runs). Each row also keeps
the per-seed values the claims test (claims contract v2: tests over per-seed values), as columns `<value>_seed<N>`."""

from __future__ import annotations

import re

import pandas as pd

RUN_KEYS = ["experiment", "block", "source", "variant", "d", "arch", "r", "eta", "wd"]
RUN_VALUES = ["gap", "gap_converged", "train_mse", "test_mse", "excess", "sharpness", "threshold", "stable", "converged",
              "hit_target", "steps", "wpn", "budget", "path_norm", "silent_high_norm", "dead", "neurons",
              "init_sharpness", "init_stable", "init_wpn", "init_budget", "init_constraint_holds",
              "counts", "gap_counted", "bound", "bound_counted", "eff_dim", "var_y", "vacuous", "vacuous_counted"]


# the per-seed values of tables/main.csv (columns <value>_seed<N>) the claims read
SEED_VALUES = ["gap_converged", "gap", "stable", "converged", "hit_target", "constraint_holds", "init_stable",
               "init_constraint_holds", "counts", "gap_counted", "bound_counted", "vacuous_counted", "var_y"]
SEED_COLUMN = re.compile(r"^(?P<value>.+)_seed(?P<seed>\d+)$")


def _with_seed_columns(out: pd.DataFrame, runs: pd.DataFrame, keys: list[str], values: list[str]) -> pd.DataFrame:
    """`out` (one row per cell of `keys`, in any order) with the runs' per-seed values of each cell as columns
    <value>_seed<N> (NaN where that seed has no run of the cell). Cells are matched on the keys' text, so NaN keys
    match too."""
    def key(frame: pd.DataFrame) -> list[str]:
        return ["|".join(map(str, cell)) for cell in frame[keys].itertuples(index=False)]

    wide = runs.assign(_cell=key(runs)).pivot_table(index="_cell", columns="seed", values=values, aggfunc="mean",
                                                    dropna=False)
    wide.columns = [f"{value}_seed{int(seed)}" for value, seed in wide.columns]
    ordered = [f"{value}_seed{int(seed)}" for value in values for seed in sorted(runs["seed"].unique())]
    wide = wide.reindex(columns=ordered)
    return out.assign(_cell=key(out)).merge(wide, left_on="_cell", right_index=True, how="left").drop(columns="_cell")


def seed_values(row, value: str) -> dict[int, float]:
    """{seed: value} of one row of a table with <value>_seed<N> columns."""
    found = {}
    for column in row.index:
        match = SEED_COLUMN.match(str(column))
        if match and match["value"] == value:
            found[int(match["seed"])] = float(row[column])
    return dict(sorted(found.items()))


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    """Sphere, image and control runs: seed mean of every measured value, the gap's seed sd, and the seed count.
    gap_converged is the seed mean over the runs that met the convergence rule only (NaN when none did): the claims
    use it, so a run stopped by the step cap never enters a verdict."""
    runs = runs.copy()
    for col in ("block", "source", "variant"):
        runs[col] = runs[col].fillna("-") if col in runs else "-"
    for col in RUN_VALUES:
        if col not in runs:
            runs[col] = float("nan")
    conv = runs["converged"].astype(float) == 1.0
    runs["gap_converged"] = runs["gap"].where(conv)
    # the claims' values: only runs that count (fitted to the common target and ending with S <= 2/eta); a control
    # row (least squares) has no "counts" column and counts when it converged (it is exact)
    counts = runs["counts"].astype(float).where(runs["counts"].notna(), conv.astype(float)) == 1.0
    runs["counts"] = counts.astype(float)
    runs["gap_counted"] = runs["gap"].where(counts)
    runs["bound_counted"] = runs["bound"].where(counts)
    runs["vacuous_counted"] = runs["vacuous"].where(counts)
    runs["constraint_holds"] = (runs["wpn"] <= runs["budget"]).where(runs["wpn"].notna())
    runs["init_constraint_holds"] = (runs["init_wpn"] <= runs["init_budget"]).where(runs["init_wpn"].notna())
    for col in RUN_VALUES + ["constraint_holds"]:
        runs[col] = runs[col].astype(float)
    g = runs.groupby(RUN_KEYS, sort=False, dropna=False)
    out = g[RUN_VALUES + ["constraint_holds"]].mean()
    out["gap_sd"] = g["gap"].std(ddof=1)
    out["seeds"] = g.size()
    return _with_seed_columns(out.reset_index(), runs, RUN_KEYS, SEED_VALUES)


def table_geometry(runs: pd.DataFrame) -> pd.DataFrame:
    """Participation ratio (with PR / r^2), PCA spectra and coverage curves, averaged over seeds; per seed the value
    over dim (`value_over_dim_seed<N>`: PR / r^2 on the pr rows)."""
    g = runs.groupby(["measure", "source", "variant", "r", "dim", "x"], dropna=False, sort=False)["value"]
    out = g.agg(["mean", "std", "size"]).reset_index().rename(columns={"mean": "value", "std": "sd", "size": "seeds"})
    out["value_over_dim"] = out["value"] / out["dim"]
    keys = ["measure", "source", "variant", "r", "dim", "x"]
    runs = runs.assign(value_over_dim=runs["value"] / runs["dim"])
    return _with_seed_columns(out, runs, keys, ["value_over_dim"])

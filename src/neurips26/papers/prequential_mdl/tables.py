"""Tables from the per-job run CSVs: every run (tables/runs.csv), the measure-target correlations and the bound."""

from __future__ import annotations

import pandas as pd

from neurips26.papers.prequential_mdl.correlations import correlate

KEYS = ["task", "noise", "width", "n", "seed"]


def table_runs(runs: pd.DataFrame) -> pd.DataFrame:
    return runs.sort_values(KEYS, kind="stable").reset_index(drop=True)


def table_correlations(runs: pd.DataFrame, cfg) -> pd.DataFrame:
    """One row per task x target x measure: Pearson, Spearman, Kendall over all runs of the task, with bootstrap CIs."""
    rows = []
    for t, task in enumerate(sorted(runs.task.unique())):
        part = runs[runs.task == task]
        for target in cfg.targets:
            for m, (measure, column) in enumerate(cfg.measures.items()):
                stats = correlate(part[column], part[target], int(cfg.bootstrap.resamples), seed=1000 * t + m)
                rows.append({"task": task, "target": target, "measure": measure, "column": column,
                             "runs": len(part), **stats})
    return pd.DataFrame(rows)


def table_bound(runs: pd.DataFrame) -> pd.DataFrame:
    """The PAC-MDL bound per run beside the measured test error: is it non-vacuous (< 1), does it hold?"""
    cols = [*KEYS, "interpolated", "train_err", "test_err", "test_err_clean", "regret_bits", "regret_per_example"]
    out = table_runs(runs)[cols + ["bound"]].copy()
    out["slack"] = out.bound - out.test_err
    out["non_vacuous"] = out.bound < 1.0
    out["holds"] = out.bound >= out.test_err
    return out

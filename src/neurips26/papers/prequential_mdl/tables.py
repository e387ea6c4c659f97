"""Tables from the per-job run CSVs: every run (tables/runs.csv), the measure-target correlations and the bound."""

from __future__ import annotations

import pandas as pd

from neurips26.papers.prequential_mdl.correlations import bootstrap_seed, correlate

KEYS = ["task", "noise", "width", "n", "seed"]


def table_runs(runs: pd.DataFrame) -> pd.DataFrame:
    return runs.sort_values(KEYS, kind="stable").reset_index(drop=True)


SUBSETS = ("all", "interpolating")


def interpolating(runs: pd.DataFrame, cfg) -> pd.Series:
    """The (nearly) interpolating regime: training 0-1 error on the (noisy) training labels <= regime.max_train_err
    (with a 1e-9 tolerance: a run stopped at exactly 99% accuracy has train_err 1 - 0.99 = 0.01 + 1e-17)."""
    return runs.train_err <= float(cfg.regime.max_train_err) + 1e-9


def table_correlations(runs: pd.DataFrame, cfg) -> pd.DataFrame:
    """One row per task x subset x target x measure: Pearson, Spearman, Kendall with bootstrap CIs, over all runs of
    the task and, as separate rows, over the runs in the (nearly) interpolating regime. A subset of fewer than 3 runs
    gets NaN coefficients (its run count says why). Each bootstrap resamples from its own stream of the configured
    seed set (correlations.bootstrap_rng)."""
    rows = []
    regime = interpolating(runs, cfg)
    for task in sorted(runs.task.unique()):
        for subset in SUBSETS:
            part = runs[(runs.task == task) & (regime if subset == "interpolating" else True)]
            for target in cfg.targets:
                for measure, column in cfg.measures.items():
                    seed = bootstrap_seed(cfg, f"{task} {subset} {target} {measure}")
                    stats = (correlate(part[column], part[target], int(cfg.bootstrap.resamples), seed=seed)
                             if len(part) >= 3 else
                             {k: float("nan") for k in ("pearson", "pearson_lo", "pearson_hi", "spearman",
                                                        "spearman_lo", "spearman_hi", "kendall", "kendall_lo",
                                                        "kendall_hi")})
                    rows.append({"task": task, "subset": subset, "target": target, "measure": measure,
                                 "column": column, "runs": len(part), **stats})
    return pd.DataFrame(rows)


def table_bound(runs: pd.DataFrame) -> pd.DataFrame:
    """The PAC-MDL bound per run beside the measured test error: is it non-vacuous (< 1), does it hold?"""
    cols = [*KEYS, "interpolated", "train_err", "test_err", "test_err_clean", "regret_bits", "regret_per_example"]
    out = table_runs(runs)[cols + ["bound"]].copy()
    out["slack"] = out.bound - out.test_err
    out["non_vacuous"] = out.bound < 1.0
    out["holds"] = out.bound >= out.test_err
    return out

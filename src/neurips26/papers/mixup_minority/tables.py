"""The paper's tables, aggregated over seeds from the saved run CSVs."""

from __future__ import annotations

import pandas as pd

LT_VALUES = ["acc", "acc_head", "acc_medium", "acc_tail", "train_acc", "tail_w_cos", "tail_mean_cos", "nc1", "train_loss"]
LPM_VALUES = ["minority_w_cos", "minority_mean_cos", "majority_w_cos", "w_norm_ratio", "steps"]
ABLATION = {"mixup_instance": (False, False), "bmls": (True, False), "ms": (False, True), "bmls_ms": (True, True)}


def _mean_sd(runs: pd.DataFrame, keys: list[str], values: list[str]) -> pd.DataFrame:
    grouped = runs.groupby(keys, sort=False)[values]
    out = grouped.mean().add_suffix("_mean").join(grouped.std(ddof=1).add_suffix("_sd"))
    out["seeds"] = runs.groupby(keys, sort=False)["seed"].nunique()
    return out.reset_index()


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    """Long-tailed image runs: mean and sd over seeds per dataset x ratio x method."""
    out = _mean_sd(runs, ["dataset", "ratio", "method"], LT_VALUES)
    return out.sort_values(["dataset", "ratio"], kind="stable").reset_index(drop=True)


def table_lpm(runs: pd.DataFrame) -> pd.DataFrame:
    out = _mean_sd(runs, ["ratio", "method"], LPM_VALUES)
    out["etf_value"] = runs.groupby(["ratio", "method"], sort=False)["etf_value"].first().to_numpy()
    return out.sort_values("ratio", kind="stable").reset_index(drop=True)


def table_ablation(lt_runs: pd.DataFrame, lpm_runs: pd.DataFrame) -> pd.DataFrame:
    """BMLS and MS switched on and off: the long-tailed accuracies and the layer-peeled collapse, per ratio."""
    lt = table_main(lt_runs[lt_runs["method"].isin(ABLATION)])
    lp = table_lpm(lpm_runs[lpm_runs["method"].isin(ABLATION)])
    lp = lp.assign(dataset="layer_peeled")
    out = pd.concat([lt, lp], ignore_index=True)
    out.insert(3, "bmls", out["method"].map(lambda m: ABLATION[m][0]))
    out.insert(4, "ms", out["method"].map(lambda m: ABLATION[m][1]))
    return out


def table_geometry(grams: pd.DataFrame) -> pd.DataFrame:
    return grams.groupby(["ratio", "method", "kind", "i", "j"], sort=False)["cos"].mean().reset_index()

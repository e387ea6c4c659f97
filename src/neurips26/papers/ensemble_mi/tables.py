"""Tables aggregated over seeds (and calibration/test splits) from the per-run CSVs; figures and claims read only these."""

from __future__ import annotations

import numpy as np
import pandas as pd


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    """Held-out accuracy and MI per task x method x budget: mean and std over seeds and splits. mi is the exact
    (exact-likelihood Monte-Carlo) MI on the simulator and the held-out estimate on real pools; mi_se is the mean
    standard error of one run's estimate (Monte-Carlo SE on the simulator, test-set SE on real pools). The positive
    control's rows (`<task>_dup`) also carry planted_set_gain: the test accuracy of the best member with the planted
    decorrelated members minus the best member's (the known amount a better set beats top-k's copies by)."""
    sel = runs[runs.kind == "selection"].copy()
    exact = "mi_exact" in sel
    sel["mi"] = sel["mi_exact"].fillna(sel["mi_heldout"]) if exact else sel["mi_heldout"]
    sel["mi_se"] = sel["mi_exact_se"].fillna(sel["mi_heldout_se"]) if exact else sel["mi_heldout_se"]
    control = {c: (c, "mean") for c in ("planted_set_gain",) if c in sel}  # positive control
    out = sel.groupby(["task", "method", "budget"]).agg(
        accuracy=("accuracy", "mean"), accuracy_std=("accuracy", "std"), mi=("mi", "mean"),
        mi_se=("mi_se", "mean"), mi_heldout=("mi_heldout", "mean"), mi_heldout_se=("mi_heldout_se", "mean"),
        runs=("accuracy", "size"), **control).reset_index()
    return out.sort_values(["task", "method", "budget"]).reset_index(drop=True)


def table_estimator(runs: pd.DataFrame) -> pd.DataFrame:
    """MI estimators on calibration draws against exact MI by enumeration, per subset size (bias and RMSE in bits)."""
    est = runs[runs.kind == "estimator"]
    rows = []
    for (task, size), part in est.groupby(["task", "budget"]):
        row = {"task": task, "subset_size": int(size), "subsets": len(part), "mi_true": part.mi_true.mean()}
        for name in ("plugin", "plugin_mm", "cv_xent"):
            err = part[f"mi_{name}"] - part.mi_true
            row[f"bias_{name}"], row[f"rmse_{name}"] = err.mean(), float(np.sqrt((err ** 2).mean()))
        if "se_plugin" in part:  # delta-method SE of the plug-in; coverage: |Miller-Madow - exact| <= 2 SE
            row["se_plugin"] = float(part.se_plugin.mean())
            row["coverage_2se_plugin_mm"] = float(((part.mi_plugin_mm - part.mi_true).abs() <= 2 * part.se_plugin).mean())
        rows.append(row)
    return pd.DataFrame(rows)


def table_floor(runs: pd.DataFrame) -> pd.DataFrame:
    """Plurality-vote floor (closed form vs simulation, mean over seeds) and the K = 2 information rows."""
    keys = ["kind", "classes", "eps", "rho", "models"]
    runs = runs.copy()
    runs["models"] = runs["models"].fillna(-1) if "models" in runs else -1
    values = [c for c in runs.columns if c not in keys + ["seed"]]
    out = runs.groupby(keys).agg({c: "mean" for c in values}).reset_index()
    out["models"] = out["models"].astype(int).replace(-1, pd.NA)
    return out


def table_selected_models(runs: pd.DataFrame, budget: int) -> pd.DataFrame:
    """How often each member is in a method's set at `budget`, over seeds and splits (real pools and simulator)."""
    sel = runs[(runs.kind == "selection") & (runs.budget == budget) & runs.method.isin(["greedy_mi", "top_k"])]
    rows = []
    for (task, method), part in sel.groupby(["task", "method"]):
        counts = pd.Series([m for p in part.picks for m in str(p).split()]).value_counts()
        for rank, (member, n) in enumerate(counts.items(), start=1):
            rows.append({"task": task, "method": method, "budget": budget, "rank": rank, "member": member,
                         "frequency": n / len(part)})
    return pd.DataFrame(rows)


TABLES = {"main": table_main, "estimator": table_estimator, "floor": table_floor}

"""Aggregate the per-seed run CSVs into the paper's tables (one row per cell; all numbers from the saved runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd

BIAS_ESTIMATORS = ("mec", "mec_opt", "naive", "audit_only", "regression_calibration")


def _bias_row(cell: pd.DataFrame, est: str) -> dict:
    """Bias against the oracle with two standard errors: over audits given the data (the conditional claim), and over
    datasets (for estimators that do not change with the audit, whose error is fixed given the data)."""
    diff = (cell[est] - cell["oracle"]).rename("diff")
    per = pd.concat([cell[["seed", "dataset"]], diff], axis=1).dropna().groupby(["seed", "dataset"])["diff"]
    means, varis, counts = per.mean(), per.var(ddof=1).fillna(0.0), per.size()
    datasets = len(means)
    se_audit = float(np.sqrt((varis / counts).sum()) / datasets)
    se_data = float(means.std(ddof=1) / np.sqrt(datasets)) if datasets > 1 else np.nan
    audit_kind = counts.min() > 1 and se_audit > 0
    bias = float(diff.mean())
    se = se_audit if audit_kind else se_data
    row = {"estimator": est, "replicates": int(diff.notna().sum()), "datasets": datasets, "bias": bias,
           "se": se, "se_kind": "audit" if audit_kind else "data", "z": bias / se if se and se > 0 else np.nan,
           "mc_var": float(varis.mean()), "rmse": float(np.sqrt(np.nanmean(diff**2))), "oracle_mean": cell["oracle"].mean()}
    plugin = {"mec": "plugin_var", "mec_opt": "plugin_var_opt"}.get(est)
    row["plugin_var"] = float(cell[plugin].mean()) if plugin else np.nan
    row["exact_var"] = float(cell["exact_var"].mean()) if est == "mec" else np.nan
    row["mean_w"] = float(cell["w_opt"].mean()) if est == "mec_opt" else np.nan
    return row


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    rows = [{"noise": noise, "n": n, **_bias_row(cell, est)}
            for (noise, n), cell in runs.groupby(["noise", "n"]) for est in BIAS_ESTIMATORS]
    out = pd.DataFrame(rows)
    out["plugin_rel_error"] = out["plugin_var"] / out["mc_var"] - 1.0
    return out


def table_rate(runs: pd.DataFrame) -> pd.DataFrame:
    """RMSE against the population MMD^2 per (method, N), and the least-squares slope of log RMSE on log N."""
    rows = []
    for method in ("mec", "oracle", "naive"):
        err = runs[method] - runs["population"]
        by_n = err.groupby(runs["N"])
        rmse = np.sqrt((err**2).groupby(runs["N"]).mean())
        slope = float(np.polyfit(np.log(rmse.index.to_numpy(float)), np.log(rmse.to_numpy()), 1)[0])
        for N, value in rmse.items():
            rows.append({"method": method, "N": N, "n": int(runs.loc[runs["N"] == N, "n"].iloc[0]),
                         "replicates": int(by_n.size()[N]), "rmse": value, "mean_error": by_n.mean()[N],
                         "population": runs["population"].iloc[0], "slope": slope})
    return pd.DataFrame(rows)


def table_estimation(runs: pd.DataFrame) -> pd.DataFrame:
    g = runs.groupby("method", sort=False)
    return pd.DataFrame({
        "replicates": g.size(),
        "rmse_theta": np.sqrt(g["sq_err"].mean()),
        "rmse_mu": np.sqrt(g.apply(lambda d: (d["err_mu0"] ** 2 + d["err_mu1"] ** 2).mean(), include_groups=False)),
        "rmse_log_sigma": np.sqrt((runs["err_log_sigma"] ** 2).groupby(runs["method"], sort=False).mean()),
        "bias_mu0": g["err_mu0"].mean(), "bias_mu1": g["err_mu1"].mean(), "bias_log_sigma": g["err_log_sigma"].mean(),
    }).reset_index()


def table_test_size(runs: pd.DataFrame) -> pd.DataFrame:
    """Rejection rates at the run's alpha: size under the null, power under the alternative."""
    rate = runs.pivot_table(index="method", columns="hypothesis", values="reject", aggfunc=["mean", "size"], sort=False)
    return pd.DataFrame({"method": rate.index, "size": rate[("mean", "H0")].to_numpy(),
                         "power": rate[("mean", "H1")].to_numpy(),
                         "tests_null": rate[("size", "H0")].to_numpy(), "tests_alternative": rate[("size", "H1")].to_numpy(),
                         "alpha": float(runs["alpha"].iloc[0])}).reset_index(drop=True)

"""The paper's abstract claims as checkable criteria over the tables (criteria fixed before any result was seen)."""

from __future__ import annotations

import pandas as pd

from neurips26.common.claims import Claim


def _unbiased(main: pd.DataFrame) -> Claim:
    mec = main[main["estimator"] == "mec"]
    top = main[(main["noise"] == main["noise"].max()) & (main["estimator"] == "naive")]
    return Claim(
        "unbiased", "MEC-MMD is exactly unbiased for the oracle MMD^2 under simple random auditing, while naive MMD on the "
        "noisy measurements is biased", "max_abs_z < 3 and naive_abs_z_at_max_noise > 10",
        {"max_abs_z": mec["z"].abs().max(), "naive_abs_z_at_max_noise": top["z"].abs().min(),
         "max_abs_bias_mec": mec["bias"].abs().max(), "naive_bias_at_max_noise": top["bias"].mean()},
        ["tables/main.csv", "figures/bias_vs_noise.png"])


def _variance(main: pd.DataFrame) -> Claim:
    mec = main[main["estimator"] == "mec"]
    return Claim(
        "variance", "the explicit (1/n - 1/N) audit-variance term, estimated by plug-in, matches the Monte-Carlo variance",
        "max_rel_error < 0.2",
        {"max_rel_error": mec["plugin_rel_error"].abs().max(),
         "max_rel_error_exact_vs_mc": (mec["exact_var"] / mec["mc_var"] - 1).abs().max()},
        ["tables/main.csv", "figures/rmse_vs_audit_size.png"])


def _rate(rate: pd.DataFrame) -> Claim:
    slope = rate.groupby("method")["slope"].first()
    return Claim(
        "rate", "MEC-MMD is consistent at O_p(N^-1/2) when the audit size scales with N",
        "mec_slope >= -0.6 and mec_slope <= -0.4",
        {"mec_slope": slope["mec"], "oracle_slope": slope["oracle"], "naive_slope": slope["naive"]},
        ["tables/rate.csv", "figures/rate_loglog.png"])


def _estimation(est: pd.DataFrame) -> Claim:
    rmse = est.set_index("method")["rmse_theta"]
    return Claim(
        "estimation", "as a loss for parameter estimation MEC-MMD beats naive MMD and the audit-only loss",
        "mec_rmse < naive_rmse and mec_rmse < audit_only_rmse",
        {f"{m}_rmse": v for m, v in rmse.items()}, ["tables/estimation.csv", "figures/param_estimation.png"])


def _testing(sizes: pd.DataFrame) -> Claim:
    s = sizes.set_index("method")
    return Claim(
        "testing", "two-sample testing across devices: the naive test's size is inflated, the MEC test holds its level",
        "naive_size > 0.1 and mec_size <= 0.08",
        {"naive_size": s.loc["naive", "size"], "mec_size": s.loc["mec", "size"], "mec_power": s.loc["mec", "power"],
         "audit_only_power": s.loc["audit_only", "power"], "oracle_power": s.loc["oracle", "power"]},
        ["tables/test_size.csv", "figures/test_power.png"])


def build(main, rate, est, sizes) -> tuple[list[Claim], dict]:
    """The claims and a flat metrics dict (every measured value, prefixed by its claim id)."""
    claims = [_unbiased(main), _variance(main), _rate(rate), _estimation(est), _testing(sizes)]
    metrics = {f"{c.id}.{k}": v for c in claims for k, v in c.to_json()["measured"].items()}
    metrics.update({f"{c.id}.holds": c.to_json()["holds"] for c in claims})
    return claims, metrics

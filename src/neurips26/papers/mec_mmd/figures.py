"""Figures, each drawn from one saved table (never from in-memory results)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from neurips26.common.pipeline.plotting import new_figure

LABELS = {"mec": "MEC (w=1)", "mec_opt": "MEC (PPI++ w)", "naive": "naive (Y)", "audit_only": "audit-only (X_A)",
          "oracle": "oracle (all X)", "regression_calibration": "regression calibration",
          "conv_true": "convMMD (true noise)", "conv_misspecified": "convMMD (misspecified)"}


def _grid_ticks(ax, values) -> None:
    """Label a log axis at the grid values only (matplotlib's minor log labels collide)."""
    values = np.sort(np.unique(values))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(values, [f"{v:g}" for v in values])


def bias_vs_noise(main: pd.DataFrame):
    """Left: bias vs oracle at the largest audit, +-2 SE. Right: MEC's z-score per audit size, with the |z| < 3 band."""
    fig, (ax, az) = new_figure(2)
    top = main[main["n"] == main["n"].max()]
    for est, d in top.groupby("estimator", sort=False):
        ax.errorbar(d["noise"], d["bias"], yerr=2 * d["se"], marker="o", capsize=2, label=LABELS[est])
    ax.axhline(0, color="k", lw=0.8)
    ax.set(xlabel="noise level s", ylabel="mean(estimate - oracle MMD$^2$)", title=f"bias, n = {int(top['n'].iloc[0])}")
    ax.legend(fontsize=7)
    for n, d in main[main["estimator"] == "mec"].groupby("n"):
        az.plot(d["noise"], d["z"], marker="o", label=f"n = {n}")
    az.axhspan(-3, 3, color="0.9", zorder=0)
    az.set(xlabel="noise level s", ylabel="z = bias / MC SE", title="MEC: bias in standard errors")
    az.legend(fontsize=7)
    return fig


def rmse_vs_audit_size(main: pd.DataFrame):
    """Left: RMSE vs oracle against n at the top noise level. Right: plug-in vs Monte-Carlo audit variance of MEC."""
    fig, (ax, av) = new_figure(2, width_per_col=4.8)
    top = main[main["noise"] == main["noise"].max()]
    for est, d in top.groupby("estimator", sort=False):
        ax.loglog(d["n"], d["rmse"], marker="o", label=LABELS[est])
    _grid_ticks(ax, main["n"])
    ax.set(xlabel="audit size n", ylabel="RMSE vs oracle", title=f"noise s = {top['noise'].iloc[0]:g}")
    ax.legend(fontsize=7)
    for noise, d in main[main["estimator"] == "mec"].groupby("noise"):
        line, = av.loglog(d["n"], d["mc_var"], marker="o", label=f"s = {noise:g}: Monte Carlo")
        av.loglog(d["n"], d["plugin_var"], ls="--", marker="x", color=line.get_color(), label="plug-in")
    _grid_ticks(av, main["n"])
    av.set(xlabel="audit size n", ylabel="Var(MEC | data)", title="plug-in vs Monte-Carlo variance")
    av.legend(fontsize=6, ncol=2)
    return fig


def rate_loglog(rate: pd.DataFrame):
    fig, (ax,) = new_figure()
    for method, d in rate.groupby("method", sort=False):
        ax.loglog(d["N"], d["rmse"], marker="o", label=f"{LABELS[method]}: slope {d['slope'].iloc[0]:.2f}")
    ns = np.sort(rate["N"].unique()).astype(float)
    anchor = rate[(rate["method"] == "oracle") & (rate["N"] == ns[0])]["rmse"].iloc[0]
    ax.loglog(ns, anchor * (ns / ns[0]) ** -0.5, "k:", label="N$^{-1/2}$")
    _grid_ticks(ax, ns)
    ax.set(xlabel="N (audit n = N/10)", ylabel="RMSE vs population MMD$^2$", title="consistency rate")
    ax.legend(fontsize=7)
    return fig


def param_estimation(est: pd.DataFrame):
    fig, (ax,) = new_figure(width_per_col=5.5)
    pos = np.arange(len(est))
    ax.bar(pos - 0.2, est["rmse_mu"], 0.4, label="RMSE of $\\mu$")
    ax.bar(pos + 0.2, est["rmse_log_sigma"], 0.4, label="RMSE of log $\\sigma$")
    ax.set_xticks(pos, [LABELS[m] for m in est["method"]], rotation=30, ha="right")
    ax.set(ylabel="parameter RMSE", title="minimum-distance estimation under measurement error")
    ax.legend()
    return fig


def test_power(sizes: pd.DataFrame):
    fig, (ax,) = new_figure()
    pos = np.arange(len(sizes))
    ax.bar(pos - 0.2, sizes["size"], 0.4, label="size (H0)")
    ax.bar(pos + 0.2, sizes["power"], 0.4, label="power (shift)")
    ax.axhline(sizes["alpha"].iloc[0], color="k", ls=":", label="alpha")
    ax.set_xticks(pos, [LABELS[m] for m in sizes["method"]], rotation=20, ha="right")
    ax.set(ylabel="rejection rate", ylim=(0, 1.05), title="two devices, two groups")
    ax.legend()
    return fig

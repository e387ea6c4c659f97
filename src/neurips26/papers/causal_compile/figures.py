"""Figures, each drawn from one saved table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure


def conversion_bias_vs_p0(table: pd.DataFrame):
    fig, (ax, am) = new_figure(2)
    analytic = table[table["source"] == "analytic"]
    for (scale, rr), d in analytic.groupby(["scale", "rr"]):
        ax.plot(d["p0"], d["naive_bias"], marker="o", ms=3, ls="-" if scale == "OR" else "--",
                label=f"{scale} taken as RR, RR={rr:g}")
    ax.axhline(0, color="k", lw=0.8)
    ax.set(xlabel="baseline risk p0", ylabel="naive bias (log scale)", title="analytic: OR/HR taken as RR")
    ax.legend(fontsize=5, ncol=2)
    measured = table[table["source"] == "measured"]
    for scale, d in measured.groupby("scale"):
        am.plot(d["p0"], d["naive_bias"], marker="o", label=f"naive ({scale})")
        am.plot(d["p0"], d["compiled_bias"], marker="x", ls=":", label=f"compiled ({scale})")
    am.set(xlabel="baseline risk p0 (bin centre)", ylabel="mean |canonical error|", title="measured on the corpus")
    am.legend(fontsize=7)
    return fig


def conflict_pr(table: pd.DataFrame):
    fig, (ax,) = new_figure()
    ax.plot(table["recall"], table["precision"], marker="o")
    for _, r in table.iterrows():
        ax.annotate(f"{r['level']:g}", (r["recall"], r["precision"]), fontsize=7, xytext=(3, -8),
                    textcoords="offset points")
    d = table[table["default"]]
    ax.plot(d["recall"], d["precision"], "r*", ms=12, label="default (95% CI)")
    ax.set(xlabel="recall of injected conflicts", ylabel="precision of flagged pairs", xlim=(0, 1.05), ylim=(0, 1.05),
           title="conflict detection (CI level swept)")
    ax.legend()
    return fig


def executability_by_query(table: pd.DataFrame):
    fig, (ax,) = new_figure(width_per_col=6.0)
    types = list(dict.fromkeys(table["type"]))
    methods = [m for m in dict.fromkeys(table["method"]) if m in ("compiled", "naive", "pooled", "retrieval")]
    pos = np.arange(len(types))
    width = 0.8 / len(methods)
    for i, m in enumerate(methods):
        d = table[table["method"] == m].set_index("type").reindex(types)
        ax.bar(pos + (i - (len(methods) - 1) / 2) * width, d["executable"], width, label=m)
    ax.set_xticks(pos, types, rotation=20)
    ax.set(ylabel="fraction executable", ylim=(0, 1.05), title="query executability by type")
    ax.legend(fontsize=7)
    return fig


def cohort_validation(table: pd.DataFrame):
    fig, (ax,) = new_figure()
    table = table[table["method"].isin(["compiled", "naive", "pooled"])]
    for (m, t), d in table.groupby(["method", "type"]):
        ax.scatter(d["cohort"], d["compiled"], s=12, alpha=0.7, label=f"{m}, {t}")
    lim = float(np.nanmax(np.abs(table[["cohort", "compiled"]].to_numpy()))) * 1.1
    ax.plot([-lim, lim], [-lim, lim], "k:", lw=0.8)
    ax.axhline(0, color="0.6", lw=0.6)
    ax.axvline(0, color="0.6", lw=0.6)
    ax.set(xlabel="cohort estimate (backdoor-adjusted)", ylabel="query answer",
           title="do, temporal (24 mo) and heterogeneous queries vs the simulated cohort")
    ax.legend(fontsize=7)
    return fig

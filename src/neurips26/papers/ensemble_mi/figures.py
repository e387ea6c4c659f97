"""Figures, each drawn from one saved table."""

from __future__ import annotations

import numpy as np
import pandas as pd

COLORS = {"greedy_mi": "tab:red", "top_k": "tab:blue", "random_k": "grey", "greedy_acc": "tab:green",
          "acc_div": "tab:purple", "all_vote": "black", "best_single": "tab:orange", "oracle": "lightgrey"}


def _curves(table: pd.DataFrame, column: str, ylabel: str):
    from neurips26.common.pipeline.plotting import new_figure  # matplotlib only in the figure jobs

    # single full-pool values (decorrelated pool, fitted copula) are drawn as lines in their pool's panel
    levels = {"_indep2": ("independent errors", "tab:cyan"), "_copula": ("copula-predicted plateau", "tab:brown")}
    tasks = sorted((t for t in table.task.unique()
                    if not t.endswith(("_indep2", "_copula", "_copula_indep", "_llm_corr"))),
                   key=lambda t: (not t.startswith("sim"), t))
    fig, axes = new_figure(len(tasks), width_per_col=2.7, height=2.9)
    for ax, task in zip(axes, tasks):
        part = table[table.task == task]
        for method, rows in part.groupby("method"):
            if method in ("all_vote", "best_single"):
                if column == "accuracy":
                    ax.axhline(rows[column].iloc[0], color=COLORS[method], ls=":", lw=1, label=method)
                continue
            style = "o--" if method == "oracle" else "o-"  # oracle: power-split-peeking headroom, not a method
            ax.plot(rows.budget, rows[column], style, ms=2.5, lw=1.1, color=COLORS.get(method), label=method)
        for suffix, (label, color) in levels.items():
            level = table[(table.task == task + suffix) & (table.method == "full_pool")]
            if column == "accuracy" and len(level):
                ax.axhline(level.accuracy.iloc[0], color=color, ls="--", lw=0.9, label=label)
        ax.set_title(task)
        ax.set_xlabel("budget (models queried)")
    axes[0].set_ylabel(ylabel)
    axes[-1].legend(fontsize=6)
    return fig


def acc_vs_budget(table: pd.DataFrame):
    """Held-out ensemble accuracy vs budget for every selection method (mean over seeds and splits)."""
    return _curves(table, "accuracy", "held-out accuracy")


def mi_vs_budget(table: pd.DataFrame):
    """I(Y; Yhat_S) of the selected set vs budget: exact on the simulator, held-out estimate on real pools."""
    return _curves(table, "mi", "I(Y; selected predictions) [bits]")


def error_floor_vs_rho(table: pd.DataFrame):
    """Left: plurality-vote floor vs rho, closed form (lines) and simulation (points). Right: K = 2 information of M
    votes vs M against the ceiling I(Y; F) (eps = 0.3 rows)."""
    from neurips26.common.pipeline.plotting import new_figure

    fig, axes = new_figure(2, width_per_col=3.8)
    vote = table[table.kind == "vote"]
    for (k, eps), part in vote.groupby(["classes", "eps"]):
        line = axes[0].plot(part.rho, part.closed_form, "-", lw=1.2, label=f"K={k}, eps={eps:g}")[0]
        axes[0].plot(part.rho, part.simulated, "o", ms=3, color=line.get_color())
    axes[0].set_xlabel("latent correlation rho")
    axes[0].set_ylabel("plurality-vote error floor")
    axes[0].legend(fontsize=6)
    info = table[table.kind == "information"]
    eps0 = info.eps.unique()[np.argmin(np.abs(info.eps.unique() - 0.3))]
    for rho, part in info[np.isclose(info.eps, eps0)].groupby("rho"):
        line = axes[1].plot(part.models, part.information, "o-", ms=2.5, lw=1, label=f"rho={rho:g}")[0]
        axes[1].axhline(part.ceiling.iloc[0], color=line.get_color(), ls=":", lw=0.8)
    axes[1].set_xscale("log")
    axes[1].set_xlabel(f"models M (K = 2, eps = {eps0:.2g})")
    axes[1].set_ylabel("I(Y; votes) [bits]; dotted: ceiling I(Y; F)")
    axes[1].legend(fontsize=6)
    return fig


FIGURES = {"acc_vs_budget": ("main", acc_vs_budget), "mi_vs_budget": ("main", mi_vs_budget),
           "error_floor_vs_rho": ("floor", error_floor_vs_rho)}

"""Figures, each drawn from one saved table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

COLORS = {"dg": "black", "reinforce": "grey", "delight": "tab:red", "random": "tab:blue", "additive": "tab:green",
          "advantage": "tab:orange", "abs_advantage": "tab:brown", "surprisal": "tab:purple",
          "stale_delight": "tab:pink", "screen_delight": "tab:olive", "price_delight": "darkred",
          "kondo": "crimson", "random_at_price": "tab:cyan", "kondo_price0": "crimson", "hard_price0": "darkred",
          "random_matched": "tab:cyan"}
RATE = 0.3  # the keep rate of the screen comparison and learning curves (claims.keep_rate)


def _tasks(table: pd.DataFrame) -> list[str]:
    return sorted(table.task.unique(), key=lambda t: (t != "mnist", len(t), t))


def pareto(table: pd.DataFrame):
    """Backward passes vs learning quality (area under the curve), one panel per task; each point a method at a keep
    rate or price (kondo: the paper's gate over prices; random_at_price: random gating at the rate each price realised)."""
    # imported here, not at the top: stages.py imports this module and must not load matplotlib (tests/unit/test_lazy.py)
    from matplotlib.ticker import NullFormatter

    tasks = _tasks(table)
    fig, axes = new_figure(len(tasks), width_per_col=3.3)
    for ax, task in zip(axes, tasks):
        for method, part in table[table.task == task].groupby("method"):
            part = part.sort_values("backward_passes")
            ax.plot(part.backward_passes, part.auc, "o-" if len(part) > 1 else "s", color=COLORS.get(method),
                    label=method, ms=4, lw=1)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor-tick labels overlap on a short log axis
        ax.set_title(task)
        ax.set_xlabel("backward passes (samples)")
    axes[0].set_ylabel("area under the learning curve")
    axes[0].legend(fontsize=5, loc="lower right")  # MNIST carries every method, the price sweep included
    return fig


def learning_curves(table: pd.DataFrame):
    """Score vs step for DG and the gates at the claim keep rate."""
    tasks = _tasks(table)
    fig, axes = new_figure(len(tasks), width_per_col=3.3)
    shown = table[(table.method == "dg") | (np.isclose(table.keep_rate, RATE) & table.price.isna())]
    for ax, task in zip(axes, tasks):
        for method, part in shown[shown.task == task].groupby("method"):
            ax.plot(part.step, part.score, color=COLORS.get(method), label=method, lw=1.2)
        ax.set_title(task)
        ax.set_xlabel("step")
    axes[0].set_ylabel(f"score (gates at keep rate {RATE})")
    axes[-1].legend(fontsize=6)
    return fig


def screen_comparison(table: pd.DataFrame):
    """Final score per screen at the claim keep rate, grouped by task, with DG for reference."""
    tasks = _tasks(table)
    part = table[np.isclose(table.keep_rate, RATE) | (table.method == "dg")]
    methods = [m for m in COLORS if m in set(part.method)]
    fig, axes = new_figure(1, width_per_col=7.0)
    width = 0.8 / len(methods)
    for i, method in enumerate(methods):
        rows = part[part.method == method].set_index("task").reindex(tasks)
        axes[0].bar(np.arange(len(tasks)) + i * width, rows.score, width, yerr=rows.score_std,
                    color=COLORS[method], label=method)
    axes[0].set_xticks(np.arange(len(tasks)) + 0.4 - width / 2, tasks)
    axes[0].set_ylabel(f"final score (keep rate {RATE}; DG keeps all)")
    axes[0].legend(fontsize=6, ncol=3)
    return fig


def bandit_cosine(table: pd.DataFrame):
    """The papers' bandit: cosine with the exact gradient vs keep rate per screen; ungated and zero-price estimators
    (the paper's Bernoulli gate, its hard limit, a random gate at its rate) as lines."""
    fig, axes = new_figure(2, width_per_col=3.8)
    if "setting" in table:
        table = table[table.setting == "main"]
    lines = [m for m in ("reinforce", "dg", "kondo_price0", "hard_price0", "random_matched") if m in set(table.method)]
    screens = table[table.keep_rate.notna() & ~table.method.isin(lines)]
    for method, part in screens.groupby("method"):
        axes[0].plot(part.keep_rate, part.cosine, "o-", color=COLORS.get(method), label=method, ms=3)
        axes[1].plot(part.keep_rate, part.noise / part.signal, "o-", color=COLORS.get(method), ms=3)
    for method in lines:
        row = table[table.method == method].iloc[0]
        style = {"color": COLORS.get(method, "grey"), "ls": "--", "lw": 1,
                 "label": f"{method} (keeps {row.kept_fraction:.2f})"}
        axes[0].axhline(row.cosine, **style)
        axes[1].axhline(row.noise / row.signal, **style)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("keep rate")
    axes[0].set_ylabel("cosine with exact gradient")
    axes[1].set_ylabel("perpendicular noise / signal")
    axes[0].legend(fontsize=6)
    return fig


FIGURES = {"pareto_backward_vs_acc": ("main", pareto), "learning_curves": ("curves", learning_curves),
           "screen_comparison": ("main", screen_comparison), "bandit_cosine": ("bandit", bandit_cosine)}

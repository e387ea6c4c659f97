"""Figures, each drawn from one saved table: regret (and the bound) against test error per task, and the correlation
of every measure with the test error."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure, pyplot

REGIME_TRAIN_ERR = 0.01 + 1e-9  # config regime.max_train_err (the figure rules read only the runs table)
MARKERS = ["o", "s", "^", "D", "v", "P"]
TASK_NAMES = {"c10proxy": "Fashion-MNIST (CIFAR-10 proxy)", "c100proxy": "MNIST pairs, 100 classes (CIFAR-100 proxy)"}


def regret_vs_testerr(runs: pd.DataFrame, task: str):
    """Left: regret per example vs test error (colour = label noise, marker = width, size = n).
    Right: the PAC-MDL bound vs the test error; points above the diagonal are valid bounds, below 1 non-vacuous."""
    part = runs[runs.task == task]
    fig, (left, right) = new_figure(2, width_per_col=4.0)
    norm = pyplot().Normalize(0.0, max(float(part.noise.max()), 0.1))
    sizes = {n: 10 + 12 * i for i, n in enumerate(sorted(part.n.unique()))}
    for marker, (width, group) in zip(MARKERS, part.groupby("width")):
        kwargs = {"c": group.noise, "cmap": "viridis", "norm": norm, "marker": marker, "s": group.n.map(sizes),
                  "alpha": 0.8, "edgecolors": "none"}
        left.scatter(group.regret_per_example, group.test_err, **kwargs)
        left.scatter([], [], marker=marker, color="grey", s=14, label=f"width {width}")  # legend entry without a colour
        mappable = right.scatter(group.test_err, group.bound, **kwargs)
    r = np.corrcoef(part.regret_per_example, part.test_err)[0, 1] if len(part) > 1 else np.nan
    inside = part[part.train_err <= REGIME_TRAIN_ERR]  # the (nearly) interpolating runs, circled
    left.scatter(inside.regret_per_example, inside.test_err, s=60, facecolors="none", edgecolors="black", lw=0.6,
                 label="train err <= 0.01")
    r_in = np.corrcoef(inside.regret_per_example, inside.test_err)[0, 1] if len(inside) > 2 else np.nan
    left.set_title(f"{TASK_NAMES.get(task, task)}\nPearson r = {r:.3f} ({len(part)} runs); "
                   f"interpolating: {r_in:.3f} ({len(inside)})", fontsize=8)
    left.set_xlabel("prequential regret (L_preq - L_fin) / n  [bits / example]")
    left.set_ylabel("test error (labels with the training noise)")
    left.legend(fontsize=6, loc="best")
    top = max(1.05, float(part.bound.max()) * 1.02)
    right.plot([0, top], [0, top], color="black", lw=0.8, label="bound = test error")
    right.axhline(1.0, color="tab:red", lw=0.8, ls="--", label="vacuous above")
    right.set_xlabel("test error")
    right.set_ylabel("PAC-MDL bound")
    right.set_title("Occam bound with R as the code length", fontsize=8)
    right.legend(fontsize=6, loc="upper left")
    fig.colorbar(mappable, ax=right, label="label noise")
    return fig


def measure_correlations(table: pd.DataFrame, target: str = "test_err"):
    """Pearson over all runs (bars, 95% bootstrap interval), Kendall over all runs (dots) and Pearson over the runs in
    the (nearly) interpolating regime (crosses; absent when fewer than 3 runs reach it), per task."""
    table = table if "subset" in table else table.assign(subset="all")
    regime = table[(table.target == target) & (table.subset == "interpolating")]
    part = table[(table.target == target) & (table.subset == "all")]
    tasks = sorted(part.task.unique(), key=lambda t: (len(t), t))  # c10proxy first
    fig, axes = new_figure(len(tasks), width_per_col=4.2, height=3.8)
    for ax, task in zip(axes, tasks):
        rows = part[part.task == task].reset_index(drop=True)
        pos = np.arange(len(rows))[::-1]
        err = np.vstack([rows.pearson - rows.pearson_lo, rows.pearson_hi - rows.pearson]).clip(min=0)
        colors = ["tab:red" if m == "regret" else "tab:blue" for m in rows.measure]
        ax.barh(pos, rows.pearson, xerr=err, color=colors, alpha=0.7, error_kw={"lw": 0.8}, label="Pearson")
        ax.plot(rows.kendall, pos, "k.", label="Kendall tau")
        inter = regime[regime.task == task].set_index("measure").reindex(rows.measure)
        n_inter = int(inter.runs.max()) if inter.runs.notna().any() else 0
        ax.plot(inter.pearson.to_numpy(), pos, "x", color="tab:green", label=f"Pearson, interpolating ({n_inter} runs)")
        ax.set_yticks(pos, rows.measure, fontsize=7)
        ax.axvline(0, color="black", lw=0.6)
        ax.set_xlim(-1, 1)
        ax.set_title(TASK_NAMES.get(task, task), fontsize=8)
        ax.set_xlabel(f"correlation with {target}")
    axes[0].legend(fontsize=6, loc="lower left")
    fig.subplots_adjust(wspace=0.55)  # room for the second panel's measure names
    return fig


FIGURES = {
    "regret_vs_testerr_c10proxy": lambda t: regret_vs_testerr(t, "c10proxy"),
    "regret_vs_testerr_c100proxy": lambda t: regret_vs_testerr(t, "c100proxy"),
    "measure_correlations": measure_correlations,
}

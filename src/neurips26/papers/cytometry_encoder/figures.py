"""Figures, each drawn from one saved table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

METHODS = ["frozen", "frozen_hashed", "specialist", "cytoset", "quantiles", "leiden_freq", "random_init",
           "random_init_avg", "true_frequencies"]
COLORS = dict(zip(METHODS, ["tab:red", "salmon", "black", "tab:blue", "tab:green", "tab:purple", "grey", "silver",
                            "gold"]))


def task_auroc(table: pd.DataFrame):
    """Grouped bars: AUROC (mean +- sd over seeds) per task and method; the taxonomy under each task name."""
    tasks = list(dict.fromkeys(table.task))
    methods = [m for m in METHODS if m in set(table.method)]
    fig, axes = new_figure(1, width_per_col=10.0, height=3.6)
    ax, width = axes[0], 0.8 / len(methods)
    for j, method in enumerate(methods):
        part = table[table.method == method].set_index("task").reindex(tasks)
        ax.bar(np.arange(len(tasks)) + (j - len(methods) / 2 + 0.5) * width, part.auroc, width, yerr=part.auroc_std,
               color=COLORS[method], label=method, capsize=1.5)
    taxonomy = table.drop_duplicates("task").set_index("task").taxonomy
    ax.set_xticks(range(len(tasks)), [f"{t}\n({taxonomy[t]})" for t in tasks], fontsize=6)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0.3, 1.02)
    ax.set_ylabel("5-fold AUROC (linear probe / classifier)")
    ax.legend(fontsize=6, ncol=3, loc="upper right")
    return fig


def _scaling(table: pd.DataFrame, sweep: str, xlabel: str):
    part = table[table.sweep == sweep]
    fig, axes = new_figure(2, width_per_col=3.6)
    for task, rows in part.groupby("task", sort=False):
        mean = task == "mean_signal"
        axes[0].errorbar(rows.x, rows.auroc, yerr=rows.auroc_std if mean else None, marker="o", ms=3,
                         lw=2.2 if mean else 0.9, color="black" if mean else None, label=task, alpha=1 if mean else 0.7)
    loss = part.drop_duplicates("x")
    axes[1].plot(loss.x, loss.recon_loss, "o-", color="tab:red")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel("frozen probe AUROC")
    axes[1].set_ylabel("masked-reconstruction loss (end of pretraining)")
    axes[0].legend(fontsize=5)
    return fig


def scaling_capacity(table: pd.DataFrame):
    return _scaling(table, "capacity", "encoder width")


def scaling_corpus(table: pd.DataFrame):
    return _scaling(table, "corpus", "fraction of the pretraining corpus")


def marker_removal(table: pd.DataFrame):
    """The median over the signal tasks per removal order (one panel each): frozen encoder and quantiles, refit and
    fixed probe."""
    median = table[table.task == "median_signal"]
    orders = list(dict.fromkeys(median.order))
    fig, axes = new_figure(len(orders), width_per_col=4.5)
    for ax, order in zip(axes, orders):
        for (features, probe_kind), rows in median[median.order == order].groupby(["features", "probe"], sort=False):
            ax.plot(rows.removed, rows.auroc, "o-" if probe_kind == "refit" else "s--", ms=3,
                    color=COLORS["frozen" if features == "encoder" else "quantiles"], label=f"{features}, {probe_kind}")
        ax.set_title(f"{order} order", fontsize=8)
        ax.set_xlabel("markers removed from the task panel at test time")
    axes[0].set_ylabel("median signal-task AUROC")
    axes[0].legend(fontsize=6)
    return fig


def umap_embeddings(table: pd.DataFrame):
    """Sample and cell embeddings coloured by study (the batch-effect picture) and by label (task samples only)."""
    fig, axes = new_figure(4, width_per_col=3.0, height=3.0)
    for k, kind in enumerate(["sample", "cell"]):
        part = table[table.kind == kind]
        codes = pd.factorize(part.study)[0]
        axes[2 * k].scatter(part.x, part.y, c=codes, cmap="tab20", s=2 if kind == "cell" else 5, lw=0)
        axes[2 * k].set_title(f"{kind} embeddings by study", fontsize=8)
        labelled = part[part.label >= 0]
        rest = part[part.label < 0]
        axes[2 * k + 1].scatter(rest.x, rest.y, c="lightgrey", s=2, lw=0)
        axes[2 * k + 1].scatter(labelled.x, labelled.y, c=labelled.label, cmap="coolwarm", s=3, lw=0)
        axes[2 * k + 1].set_title(f"{kind} embeddings by label (task samples)", fontsize=8)
    for ax in axes:
        ax.set_xticks([])
        ax.set_yticks([])
    return fig


def control_null(table: pd.DataFrame):
    """Histogram of the permutation null of the control's seed-mean CV AUROC, its central 95 %, the fresh relabelling."""
    fig, axes = new_figure(1, width_per_col=4.5)
    null = table[table.kind == "permuted"].auroc
    axes[0].hist(null, bins=30, color="lightgrey", edgecolor="grey")
    for q in (0.025, 0.975):
        axes[0].axvline(null.quantile(q), color="black", ls="--", lw=0.8)
    axes[0].axvline(0.5, color="grey", lw=0.8)
    fresh = table[table.kind == "fresh"].auroc
    if len(fresh):
        axes[0].axvline(fresh.iloc[0], color="tab:blue", lw=1.2, label="fresh relabelling (positive control)")
    axes[0].set_xlabel("negative control: CV AUROC (mean over seeds) under label permutation")
    axes[0].set_ylabel("permutations")
    axes[0].legend(fontsize=6)
    return fig


def pretrain_loss(table: pd.DataFrame):
    """Masked-reconstruction loss per step (mean over seeds, smoothed over 10 steps) and the sample-mean reference."""
    fig, axes = new_figure(1, width_per_col=5.5)
    for variant, rows in table.groupby("variant", sort=False):
        smooth = rows.loss.rolling(10, min_periods=1).mean()
        axes[0].plot(rows.step, smooth, lw=2 if variant == "base" else 0.9, label=variant,
                     color="black" if variant == "base" else None)
    base = table[table.variant == "base"]
    axes[0].plot(base.step, base.reference.rolling(10, min_periods=1).mean(), ls="--", color="grey",
                 label="reference: sample's marker mean")
    axes[0].set_xlabel("pretraining step")
    axes[0].set_ylabel("masked-reconstruction MSE (arcsinh units²)")
    axes[0].set_yscale("log")
    axes[0].legend(fontsize=6)
    return fig


FIGURES = {"task_auroc": ("tasks", task_auroc), "scaling_capacity": ("scaling", scaling_capacity),
           "scaling_corpus": ("scaling", scaling_corpus), "marker_removal": ("removal", marker_removal),
           "umap_embeddings": ("umap", umap_embeddings), "control_null": ("control_null", control_null),
           "pretrain_loss": ("pretrain_loss", pretrain_loss)}

"""Figures, each drawn from one saved table: accuracy against the DCI skew (tables/main.csv) and the cell accuracy
heatmaps of the severe regime (tables/cells.csv)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

PANELS = (("cell_balanced", "cell-balanced accuracy"), ("worst_cell", "worst-cell accuracy"),
          ("worst_quarter", "mean of the worst quarter of cells"), ("minority_cell", "minority-cell accuracy"))


def acc_vs_dci(main: pd.DataFrame):
    fig, axes = new_figure(len(PANELS), width_per_col=3.6)
    for ax, (metric, label) in zip(axes, PANELS):
        for method, group in main.groupby("method", sort=False):
            style = {"lw": 2.2, "color": "black"} if method == "hyperidac" else {"lw": 1.0}
            ax.errorbar(group.gamma, group[metric], yerr=group[f"{metric}_sd"], marker="o", ms=3, capsize=2,
                        label=method, **style)
        ax.set_xlabel("DCI skew gamma (balanced -> severe)")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=6, loc="lower left")
    fig.suptitle("same class and domain marginals, joint allocation skewed by gamma (mean +- sd over seeds)", fontsize=8)
    return fig


def cell_accuracy_heatmap(cells: pd.DataFrame, methods=("static", "hyperidac")):
    severe = cells[cells.gamma == cells.gamma.max()]
    domains = list(dict.fromkeys(severe.domain))
    fig, axes = new_figure(len(methods) + 1, width_per_col=3.0, height=3.6)

    def grid(frame, column):
        table = frame.pivot_table(index="cls", columns="domain", values=column)
        return table[domains].to_numpy()

    first = severe[severe.method == methods[0]]
    counts = grid(first, "n_train")
    axes[0].imshow(counts, cmap="Greys", aspect="auto")
    for (i, j), value in np.ndenumerate(counts):
        axes[0].text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=6, color="tab:red")
    axes[0].set_title("training count per cell", fontsize=8)
    for ax, method in zip(axes[1:], methods):
        acc = grid(severe[severe.method == method], "accuracy")
        image = ax.imshow(acc, cmap="viridis", vmin=0, vmax=1, aspect="auto")
        ax.set_title(f"{method}: worst {np.nanmin(acc):.2f}, mean {np.nanmean(acc):.2f}", fontsize=8)
    fig.colorbar(image, ax=list(axes[1:]), fraction=0.05)
    for ax in axes:
        ax.set_xticks(range(len(domains)), domains, rotation=30, fontsize=6)
        ax.set_yticks(range(counts.shape[0]))
        ax.set_ylabel("class")
        ax.grid(False)
    fig.suptitle(f"severe regime (gamma = {severe.gamma.max():g}), cell accuracy averaged over seeds", fontsize=8)
    return fig

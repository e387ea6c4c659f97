"""Figures, each drawn from one saved table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

LABELS = {"ce": "CE", "fixed_etf": "fixed ETF", "mixup_instance": "Mixup (instance)", "mixup_cb": "Mixup (class-bal.)",
          "mixup_lobm": "LOBM (class x class)", "bmls": "BMLS", "ms": "MS", "bmls_ms": "BMLS + MS"}
SAMPLER_LABELS = {"instance": "instance x instance", "class_balanced": "class-balanced x instance",
                  "class_class": "class x class (LOBM)", "bmls": "BMLS"}


def minority_collapse_vs_ratio(table: pd.DataFrame):
    fig, axes = new_figure(ncols=2, width_per_col=4.4)
    for ax, value, title in ((axes[0], "minority_w_cos", "minority classifier rows"),
                             (axes[1], "minority_mean_cos", "minority class means (centred)")):
        for method, rows in table.groupby("method", sort=False):
            ax.errorbar(rows["ratio"], rows[f"{value}_mean"], yerr=rows[f"{value}_sd"].fillna(0), marker="o",
                        ms=3, label=LABELS.get(method, method))
        ax.axhline(table["etf_value"].iloc[0], color="k", ls="--", lw=0.8, label="ETF -1/(K-1)")
        ax.set_xscale("log")
        ax.set_xlabel("imbalance ratio")
        ax.set_ylabel("mean pairwise cosine")
        ax.set_title(title)
    axes[1].legend(fontsize=7)
    fig.suptitle("layer-peeled model: minority collapse vs imbalance ratio", fontsize=9)
    return fig


def mixed_label_hist(table: pd.DataFrame):
    fig, axes = new_figure(ncols=2, width_per_col=4.4)
    for sampler, rows in table.groupby("sampler", sort=False):
        order = np.argsort(-rows["p_closed"].to_numpy(), kind="stable")
        rank = np.arange(1, len(rows) + 1)
        line, = axes[0].plot(rank, rows["p_closed"].to_numpy()[order], label=SAMPLER_LABELS.get(sampler, sampler))
        axes[0].plot(rank, rows["p_empirical"].to_numpy()[order], ".", ms=3, color=line.get_color())
        mixed = rows[~rows["pure"]]
        axes[1].bar(SAMPLER_LABELS.get(sampler, sampler).replace(" x ", "\nx "),
                    mixed["p_closed"].max() / max(mixed["p_closed"].min(), 1e-300), color=line.get_color())
    axes[0].set_yscale("log")
    axes[0].set_xlabel("mixed label {a, b}, by rank (line: closed form, dots: draws)")
    axes[0].set_ylabel("probability")
    axes[0].set_title(f"mixed-label histogram, ratio {table['ratio'].iloc[0]:g}")
    axes[0].legend(fontsize=7)
    axes[1].set_yscale("log")
    axes[1].set_ylabel("max / min probability of a mixed pair")
    axes[1].tick_params(axis="x", labelsize=6)
    axes[1].set_title("mixed-label imbalance")
    return fig


def feature_geometry(table: pd.DataFrame):
    methods = list(dict.fromkeys(table["method"]))
    kinds = [("w", "classifier rows"), ("mean", "centred class means")]
    import matplotlib.pyplot as plt

    from neurips26.common.pipeline.plotting import STYLE

    plt.rcParams.update(STYLE)
    fig, axes = plt.subplots(2, len(methods), figsize=(3.0 * len(methods), 5.6), squeeze=False)
    for c, method in enumerate(methods):
        for r, (kind, label) in enumerate(kinds):
            rows = table[(table["method"] == method) & (table["kind"] == kind)]
            k = int(rows["i"].max()) + 1
            gram = np.zeros((k, k))
            gram[rows["i"], rows["j"]] = rows["cos"]
            image = axes[r, c].imshow(gram, vmin=-1, vmax=1, cmap="RdBu_r")
            axes[r, c].grid(False)
            axes[r, c].set_title(f"{LABELS.get(method, method)}: {label}", fontsize=8)
            axes[r, c].axhline(k / 2 - 0.5, color="k", lw=0.5)
            axes[r, c].axvline(k / 2 - 0.5, color="k", lw=0.5)
    fig.colorbar(image, ax=axes, shrink=0.6, label="cosine")
    fig.suptitle(f"layer-peeled model, ratio {table['ratio'].iloc[0]:g}: cosines (classes {k // 2}-{k - 1} minority)",
                 fontsize=9)
    return fig

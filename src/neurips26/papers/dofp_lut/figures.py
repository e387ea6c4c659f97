"""Figures, drawn from saved artifacts only: tables/main.csv and the maps of runs/seed<first>.npz."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.plotting import new_figure

COLORS = {"bilinear": "grey", "residual_interp": "tab:blue", "polanalyser": "tab:olive", "polanalyser_ea": "tab:cyan",
          "generic_lut": "tab:orange", "teacher": "black", "dofp_lut": "tab:red"}


def pareto(table: pd.DataFrame):
    """Quality (CPSNR, DoLP PSNR) against ms per megapixel (log scale) for every method that was timed."""
    fig, axes = new_figure(2, width_per_col=3.8)
    timed = table[table.role != "ablation"]
    for ax, metric, label in zip(axes, ["cpsnr", "psnr_dolp"], ["CPSNR, 12 channels (dB)", "DoLP PSNR (dB)"]):
        for _, row in timed.iterrows():
            x = row.ms_per_mp if np.isfinite(row.ms_per_mp) else np.nan
            ax.plot([x], [row[metric]], "o", color=COLORS.get(row.method, "tab:purple"), label=row.method)
        ax.set_xscale("log") if np.isfinite(timed.ms_per_mp).any() else None
        ax.set_xlabel("ms per megapixel (1 thread; wall-clock)")
        ax.set_ylabel(label)
    axes[-1].legend(fontsize=6, loc="best")
    return fig


def component_ablation(table: pd.DataFrame):
    """CPSNR and DoLP PSNR of the full DoFP-LUT and with each compiled component removed at inference."""
    names = ["bilinear", "dofp_lut", "dofp_lut_no_A", "dofp_lut_no_P", "dofp_lut_no_H"]
    part = table.set_index("method").reindex(names)
    fig, axes = new_figure(2, width_per_col=3.6)
    for ax, metric in zip(axes, ["cpsnr", "psnr_dolp"]):
        ax.bar(range(len(names)), part[metric], color=["grey", "tab:red", "tab:pink", "tab:pink", "tab:pink"])
        ax.set_xticks(range(len(names)), [n.replace("dofp_lut", "LUT").replace("_no_", " - ") for n in names],
                      rotation=30, fontsize=7)
        low = np.nanmin(part[metric]) - 1.0
        ax.set_ylim(low, np.nanmax(part[metric]) + 0.5)
        ax.set_ylabel(f"{metric} (dB)")
    return fig


def dolp_aolp_maps(arrays):
    """DoLP and AoLP of the ground truth, bilinear, the teacher and DoFP-LUT on a crop of the first test image."""
    import matplotlib.pyplot as plt

    from neurips26.common.plotting import STYLE

    plt.rcParams.update(STYLE)
    names = [n for n in ["truth", "bilinear", "teacher", "dofp_lut"] if f"map_{n}_dolp" in arrays.files]
    fig, axes = plt.subplots(2, len(names), figsize=(2.4 * len(names), 5.0), squeeze=False)
    for j, name in enumerate(names):
        axes[0, j].imshow(arrays[f"map_{name}_dolp"], cmap="viridis", vmin=0, vmax=1)
        axes[1, j].imshow(arrays[f"map_{name}_aolp"], cmap="twilight", vmin=-90, vmax=90)
        axes[0, j].set_title(name, fontsize=8)
        for ax in axes[:, j]:
            ax.set_xticks([])
            ax.set_yticks([])
            ax.grid(False)
    axes[0, 0].set_ylabel("DoLP [0, 1]")
    axes[1, 0].set_ylabel("AoLP [-90, 90] deg")
    return fig


FIGURES = {"pareto_quality_runtime": pareto, "component_ablation": component_ablation}

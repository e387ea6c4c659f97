"""Figures, drawn from saved artifacts only: tables/main.csv and the maps of runs/seed<first>.npz."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

COLORS = {"bilinear": "grey", "residual_interp": "tab:blue", "polanalyser": "tab:olive", "polanalyser_ea": "tab:cyan",
          "generic_lut": "tab:orange", "teacher": "black", "dofp_lut": "tab:red"}


def pareto(table: pd.DataFrame):
    """Quality (CPSNR, DoLP PSNR) against ms per megapixel (log scale) for every method that was timed."""
    fig, axes = new_figure(2, width_per_col=3.8)
    timed = table[~table.role.str.startswith("ablation")]
    for ax, metric, label in zip(axes, ["cpsnr", "psnr_dolp"], ["CPSNR, 12 channels (dB)", "DoLP PSNR (dB)"]):
        for _, row in timed.iterrows():
            x = row.ms_per_mp if np.isfinite(row.ms_per_mp) else np.nan
            label = "dofp_lut (fused kernel)" if row.method == "dofp_lut" else row.method
            ax.plot([x], [row[metric]], "o", color=COLORS.get(row.method, "tab:purple"), label=label)
            torch_ms = row.get("ms_per_mp_torch", np.nan) if row.method == "dofp_lut" else np.nan
            if np.isfinite(torch_ms):  # the same tables run by the torch reference: same quality, its own time
                ax.plot([torch_ms], [row[metric]], "o", mfc="none", color=COLORS["dofp_lut"],
                        label="dofp_lut (torch reference)")
        ax.set_xscale("log") if np.isfinite(timed.ms_per_mp).any() else None
        ax.set_xlabel("ms per megapixel (1 thread; wall-clock)")
        ax.set_ylabel(label)
    axes[-1].legend(fontsize=6, loc="best")
    return fig


def component_ablation(table: pd.DataFrame):
    """CPSNR and DoLP PSNR (first seed): bilinear, full DoFP-LUT, each stage removed at inference (same tables) and
    the teacher retrained without it (then compiled)."""
    order = ["bilinear", "dofp_lut"] + [f"dofp_lut_{k}_no_{s}" for s in "APH" for k in ("retrained",)] + \
        [f"dofp_lut_no_{s}" for s in "APH"]
    part = table.set_index("method").reindex([m for m in order if m in set(table.method)])
    colours = ["grey" if m == "bilinear" else "tab:red" if m == "dofp_lut" else
               "tab:orange" if "retrained" in m else "tab:pink" for m in part.index]
    labels = [m.replace("dofp_lut_retrained_no_", "retrained - ").replace("dofp_lut_no_", "removed - ")
              .replace("dofp_lut", "DoFP-LUT") for m in part.index]
    fig, axes = new_figure(2, width_per_col=4.0)
    for ax, metric in zip(axes, ["cpsnr", "psnr_dolp"]):
        ax.bar(range(len(part)), part[metric], color=colours)
        ax.set_xticks(range(len(part)), labels, rotation=45, ha="right", fontsize=7)
        ax.set_ylim(np.nanmin(part[metric]) - 1.0, np.nanmax(part[metric]) + 0.5)
        ax.set_ylabel(f"{metric} (dB)")
    return fig


def dolp_aolp_maps(arrays):
    """DoLP and AoLP of the ground truth, bilinear, the teacher and DoFP-LUT on a crop of the first test image."""
    import matplotlib.pyplot as plt

    from neurips26.common.pipeline.plotting import STYLE

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

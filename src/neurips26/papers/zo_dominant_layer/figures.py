"""Figures, drawn from the saved tables."""

from __future__ import annotations

import pandas as pd

from neurips26.common.pipeline.plotting import pyplot


def _per_task(frame: pd.DataFrame, column: str, ylabel: str, log: bool = False):
    layers = frame[frame.layer >= 0]
    fig, ax = pyplot().subplots(figsize=(7, 4))
    for (model, task), part in layers.groupby(["model", "task"]):
        line, = ax.plot(part.layer, part[column], marker="o", ms=3, label=f"{model} / {task}")
        lstar = int(part.l_star.iloc[0])
        if lstar >= 0:
            ax.axvline(lstar, color=line.get_color(), ls=":", lw=1)
    ax.set_xlabel("decoder layer (0-based); dotted: first outlier layer l*")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def outlier_profile(frame: pd.DataFrame):
    return _per_task(frame, "ratio", "max|h| / median|h| after the layer (SmolLM2 and MiniLM)", log=True)


def zo_snr_per_layer(frame: pd.DataFrame):
    return _per_task(frame, "snr", "SNR of a MeZO step on the layer (a diagnostic)")


def propagation(frame: pd.DataFrame):
    return _per_task(frame.dropna(subset=["propagation"]), "propagation", "|d logits| / eps under MeZO's z", log=True)


def layer_sweep_acc(frame: pd.DataFrame):
    """Test accuracy of MeZO on each layer alone (lr chosen on dev), with full-model and LoRA MeZO as dashed lines."""
    fig = _per_task(frame[frame.method == "zo_layer"], "test_acc", "test accuracy, MeZO on the layer alone")
    ax = fig.axes[0]
    for row in frame[frame.method.isin(["zo_full", "zo_lora"])].itertuples():
        ax.axhline(float(row.test_acc), ls="--" if row.method == "zo_full" else "-.", lw=0.8, color="grey")
    ax.set_title("dashed: full-model MeZO; dash-dot: LoRA MeZO", fontsize=8)
    return fig


def dev_curves(frame: pd.DataFrame):
    """Dev accuracy against forward passes (mean over seeds) for the chosen lr of full-model, LoRA and first-order
    runs and of MeZO at l*: the plateau the budget is checked against."""
    chosen = frame[frame.chosen.astype(bool)]
    at_lstar = chosen[(chosen.method != "zo_layer") | (chosen.layer == chosen.l_star)]
    at_lstar = at_lstar[at_lstar.method != "zo_lstar_cached"]
    fig, ax = pyplot().subplots(figsize=(7, 4))
    for (task, method), part in at_lstar.groupby(["task", "method"]):
        mean = part.groupby("forward_passes").dev_acc.mean()
        label = "zo_lstar" if method == "zo_layer" else method
        ax.plot(mean.index, mean.values, marker=".", ms=3, label=f"{task} / {label}")
    ax.set_xlabel("forward passes (a MeZO step is two)")
    ax.set_ylabel("dev accuracy (mean over seeds)")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return fig


FIGURES = {"outlier_profile": ("detector", outlier_profile), "zo_snr_per_layer": ("layers", zo_snr_per_layer),
           "propagation": ("layers", propagation), "layer_sweep_acc": ("sweep", layer_sweep_acc),
           "dev_curves": ("curves_seeds", dev_curves)}

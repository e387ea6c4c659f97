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
    return _per_task(frame, "snr", "SNR of a MeZO step on the layer (held-out descent)")


def layer_sweep(frame: pd.DataFrame):
    return _per_task(frame.dropna(subset=["propagation"]), "propagation", "|d logits| / eps under MeZO's z", log=True)


FIGURES = {"outlier_profile": ("detector", outlier_profile), "zo_snr_per_layer": ("layers", zo_snr_per_layer),
           "propagation": ("layers", layer_sweep)}

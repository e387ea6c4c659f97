"""Figures, drawn from the saved tables only."""

from __future__ import annotations

import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

LABELS = {"rldp": "RLDP (8 refs)", "probe": "ridge probe (trained)", "rollout": "rollout agreement",
          "length": "prompt length", "surface": "surface probe (character counts)", "random": "random",
          "random_control": "random (second draw)", "oracle": "oracle (no-think fails)",
          "truth": "true difficulty (control)"}


def score_vs_difficulty(table: pd.DataFrame):
    fig, (ax, bx) = new_figure(2)
    for router in ["rldp", "probe", "rollout", "length", "surface"]:
        ax.plot(table.steps, table[f"score_{router}"], marker="o", label=LABELS[router])
    ax.set(xlabel="difficulty (steps)", ylabel="mean standardised score", title="difficulty scores")
    ax.legend(fontsize=7)
    bx.plot(table.steps, table.think_correct, marker="o", label="think")
    bx.plot(table.steps, table.nothink_correct, marker="s", label="no think")
    bx.set(xlabel="difficulty (steps)", ylabel="exact accuracy", title="the small decoder", ylim=(0, 1.05))
    bx.legend()
    return fig


def layerwise_auroc(table: pd.DataFrame):
    fig, axes = new_figure(2)
    for ax, (model, t) in zip(axes, table.groupby("model")):
        ax.plot(t.layer, t.test_auroc, marker="o", label="test AUROC")
        ax.plot(t.layer, t.loo_auroc, marker="s", ls="--", label="leave-one-out AUROC (8 refs)")
        ax.plot(t.layer, t.test_spearman, marker="^", ls=":", label="test Spearman")
        for layer in t.layer[t.chosen > 0]:
            ax.axvline(layer, color="grey", alpha=0.3)
        what = "no-think failure" if model == "decoder" else "college vs elementary"
        ax.set(xlabel="layer (0 = embedding)", ylabel="RLDP quality", title=f"{model}: {what}")
        ax.legend(fontsize=7)
    return fig


def accuracy_cost_frontier(table: pd.DataFrame):
    fig, (ax,) = new_figure(1, width_per_col=5.0)
    for router, t in table.groupby("router", sort=False):
        ax.plot(t.tokens, t.accuracy, label=LABELS.get(router, router), ls="--" if router == "oracle" else "-")
    ax.set(xlabel="generated tokens per query (incl. rollouts)", ylabel="exact accuracy", title="AdaSwitch frontier")
    ax.legend(fontsize=7)
    return fig

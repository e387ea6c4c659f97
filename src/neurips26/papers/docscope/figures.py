"""Figures, drawn from the saved tables only."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

STAGES = [("page_f1", "pages (F1)"), ("region_score", "regions"), ("fact_score", "facts"),
          ("answer_accuracy", "answer"), ("chain_rate", "complete chain")]  # fmt: skip


def stage_funnel(main: pd.DataFrame):
    systems = [s for s in main["system"] if s.startswith(("bm25", "minilm")) or s == "noisy_boxes_0.01"]
    fig, (ax,) = new_figure(1, width_per_col=7.5, height=3.6)
    width = 0.8 / max(len(systems), 1)
    for i, s in enumerate(systems):
        row = main[main["system"] == s].iloc[0]
        ax.bar(np.arange(len(STAGES)) + i * width, [row[k] for k, _ in STAGES], width, label=s)
    ax.set_xticks(np.arange(len(STAGES)) + width * (len(systems) - 1) / 2, [n for _, n in STAGES])
    ax.set_ylabel("score")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("Stage scores per system (generated long PDFs)")
    return fig


def dispersion(table: pd.DataFrame):
    fig, axes = new_figure(2, width_per_col=4.0, height=3.2)
    for ax, factor, title in zip(axes, ["distance_bin", "clusters"], ["evidence distance", "evidence clusters"]):
        t = table[table["factor"] == factor].sort_values("order")
        x = np.arange(len(t))
        ax.plot(x, t["answer_accuracy"], "o-", label="answer accuracy")
        ax.plot(x, t["chain_rate"], "s--", label="complete chain")
        ax.set_xticks(x, t["level"])
        ax.set_xlabel(title)
        ax.set_ylim(0, 1.05)
    axes[0].legend(fontsize=7)
    return fig


def oracle(table: pd.DataFrame):
    fig, (ax,) = new_figure(1, width_per_col=5.5, height=3.4)
    x = np.arange(len(table))
    ax.bar(x - 0.2, table["answer_accuracy"], 0.4, label="answer accuracy")
    ax.bar(x + 0.2, table["chain_rate"], 0.4, label="complete chain")
    ax.set_xticks(x, table["variant"], fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7)
    ax.set_title("Oracle study")
    return fig

"""Figures, drawn from the saved tables (and the saved example images)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from neurips26.papers.docptbench.tables import CONDITIONS

LABELS = {"original": "original", "photographed": "photographed", "unwarped": "unwarped (quad)",
          "oracle_unwarped": "oracle unwarp"}


def _pooled(table: pd.DataFrame) -> pd.DataFrame:
    """The rows pooled over seeds (the table also holds each seed's rows, for the claims)."""
    return table[table["seed"].astype(str) == "all"] if "seed" in table.columns else table


def edit_by_condition(table: pd.DataFrame):
    """Overall edit distance by condition, one bar group per parser: severities pooled, and (when run) the
    geometric capture (warp-dominated, faint photometric damage) in a second panel."""
    table = _pooled(table)
    table = table.assign(severity=table.severity.astype(str))
    panels = [("all", "severities pooled")] + ([("geo", "geometric capture")] if (table.severity == "geo").any() else [])
    parsers = sorted(table.parser.unique())
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 3.6), sharey=True, squeeze=False)
    width = 0.8 / len(CONDITIONS)
    for ax, (severity, title) in zip(axes[0], panels):
        rows = table[table.severity.isin(["0", severity])]
        for k, condition in enumerate(CONDITIONS):
            values = [rows[(rows.parser == p) & (rows.condition == condition)].overall_edit.mean() for p in parsers]
            ax.bar(np.arange(len(parsers)) + (k - 1.5) * width, values, width, label=LABELS[condition])
        ax.set_xticks(np.arange(len(parsers)), parsers)
        ax.set_title(f"Parsing error by capture condition ({title})")
    axes[0][0].set_ylabel("overall edit distance (lower is better)")
    axes[0][0].legend(fontsize=8)
    return fig


def severity_curve(table: pd.DataFrame):
    """Overall edit distance against severity (0 = original) for each condition and parser."""
    table = _pooled(table)
    parsers = sorted(table.parser.unique())
    fig, axes = plt.subplots(1, len(parsers), figsize=(4 * len(parsers), 3.4), sharey=True, squeeze=False)
    for ax, parser in zip(axes[0], parsers):
        rows = table[(table.parser == parser) & ~table.severity.astype(str).isin(["all", "geo"])]
        original = rows[rows.condition == "original"].overall_edit.mean()
        for condition in CONDITIONS[1:]:
            part = rows[rows.condition == condition].sort_values("severity")
            ax.plot([0, *part.severity.astype(int)], [original, *part.overall_edit], marker="o",
                    label=LABELS[condition])
        ax.set_title(parser)
        ax.set_xlabel("severity")
    axes[0][0].set_ylabel("overall edit distance")
    axes[0][-1].legend(fontsize=8)
    return fig


def degradation_examples(arrays: dict):
    names = [c for c in CONDITIONS if c in arrays]
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 4.2))
    for ax, name in zip(np.atleast_1d(axes), names):
        ax.imshow(arrays[name], cmap="gray", vmin=0, vmax=255)
        ax.set_title(LABELS[name] + (" (highest severity)" if name != "original" else ""), fontsize=9)
        ax.axis("off")
    return fig

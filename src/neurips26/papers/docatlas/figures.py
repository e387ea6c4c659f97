"""Figures, each drawn from one saved table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

LABELS = {"direct": "direct input (whole document; oracle reader)", "static_rag": "static top-k RAG",
          "harness": "harness (rule)", "rl_policy": "harness (RL policy)", "no_notes": "- notes", "no_review": "- review",
          "no_refine": "- query refinement", "rl_init": "RL policy at its random init"}
CORPORA = {"generated": "generated reports (PDF)", "r_manuals": "R manuals (r-doc-pdf)"}


def acc_vs_budget(t: pd.DataFrame):
    corpora = [c for c in CORPORA if c in set(t["corpus"])]
    fig, axes = new_figure(len(corpora))
    for ax, corpus in zip(axes, corpora):
        d = t[t["corpus"] == corpus]
        for agent in ("direct", "static_rag", "harness", "rl_policy"):
            a = d[d["agent"] == agent].sort_values("budget")
            ax.errorbar(a["budget"], a["acc"], yerr=a["acc_sd"].fillna(0), marker="o", capsize=2, label=LABELS[agent])
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(d["budget"].unique()), [str(b) for b in sorted(d["budget"].unique())])
        ax.set(xlabel="context budget B (tokens per observation)", ylabel="accuracy (MMLongBench-Doc scorer)",
               ylim=(0, 1.05), title=CORPORA[corpus])
        ax.legend(fontsize=7)
    return fig


def ablation(t: pd.DataFrame):
    corpora = [c for c in CORPORA if c in set(t["corpus"])]
    fig, axes = new_figure(len(corpora), width_per_col=5.0)
    groups = ["acc", "single", "cross", "unanswerable"]
    for ax, corpus in zip(axes, corpora):
        d = t[t["corpus"] == corpus].set_index("agent")
        agents = [a for a in LABELS if a in d.index and a not in ("direct", "static_rag")]
        pos, width = np.arange(len(groups)), 0.8 / len(agents)
        for i, a in enumerate(agents):
            ax.bar(pos + (i - (len(agents) - 1) / 2) * width, [d.loc[a, g] for g in groups], width, label=LABELS[a])
        ax.set_xticks(pos, ["all", "single-page", "cross-page", "unanswerable"])
        ax.set(ylabel="accuracy", ylim=(0, 1.4), yticks=np.linspace(0, 1, 6),
               title=f"{CORPORA[corpus]}, B = {int(d['budget'].iloc[0])}")
        ax.legend(fontsize=6, ncol=3, loc="upper center")
    return fig


def rl_curve(t: pd.DataFrame):
    fig, (ax,) = new_figure()
    ax.plot(t["episodes"], t["reward"], alpha=0.35, label="reward per update (mean over seeds)")
    ax.plot(t["episodes"], t["reward_smooth"], label="running mean")
    ax.plot(t["episodes"], t["score"], ls=":", label="score (no step cost)")
    ax.set(xlabel="training episodes", ylabel="reward = score - c * steps", title="REINFORCE tool policy")
    ax.legend(fontsize=7)
    return fig

"""Figures, each drawn from one saved table (or, for the rollout frames, the saved frames of the first seed)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure

LABELS = {"expert": "scripted expert (blind)", "avoider": "scripted avoider (privileged reference)", "bc": "BC",
          "success_rl": "BC + RL (success only)", "dodge_rl": "BC + RL (DODGE-IT)",
          "contact_rl": "BC + RL (contact penalty, control)", "bc_cbf": "BC + CBF-QP filter",
          "potential_field": "potential field"}
MARKERS = {"expert": "x", "avoider": "+", "bc": "s", "success_rl": "^", "dodge_rl": "*", "contact_rl": "P", "bc_cbf": "D",
           "potential_field": "v"}


def sr_car_scatter(proxy: pd.DataFrame):
    """Success rate against collision-avoidance rate per method, one panel per SafeLIBERO level."""
    fig, axes = new_figure(2, width_per_col=4.4)
    for ax, level in zip(axes, ("I", "II")):
        for _, row in proxy[proxy["level"] == level].iterrows():
            ax.errorbar(row["car"], row["sr"], xerr=row["car_seed_sd"], yerr=row["sr_seed_sd"], capsize=2,
                        marker=MARKERS.get(row["method"], "o"), ms=8, ls="none", label=LABELS.get(row["method"]))
        ax.set(xlabel="collision-avoidance rate (%)", ylabel="success rate (%)", xlim=(-5, 105), ylim=(-5, 105),
               title=f"level {level} ({'obstacle near target' if level == 'I' else 'obstacle on the path'})")
    axes[1].legend(fontsize=6, loc="lower left")
    return fig


def rl_curves(curves: pd.DataFrame):
    """Training-batch success and collision rates (mean over seeds, +- the seed spread) per GRPO iteration."""
    fig, (a_sr, a_col) = new_figure(2)
    for kind, d in curves.groupby("reward_kind"):
        label = {"success": "success-only reward", "dodge": "DODGE-IT reward",
                 "contact": "contact-penalty reward (control)"}.get(kind, kind)
        colour = {"success": "tab:red", "dodge": "tab:purple", "contact": "tab:green"}.get(kind, "tab:grey")
        a_sr.plot(d["episodes"], 100 * d["success"], color=colour, label=label)
        a_sr.fill_between(d["episodes"], 100 * (d["success"] - d["success_seed_sd"]),
                          100 * (d["success"] + d["success_seed_sd"]), color=colour, alpha=0.15)
        a_col.plot(d["episodes"], 100 * d["collision_ref"], color=colour, label=f"{label} (simulator)")
        a_col.fill_between(d["episodes"], 100 * (d["collision_ref"] - d["collision_ref_seed_sd"]),
                           100 * (d["collision_ref"] + d["collision_ref_seed_sd"]), color=colour, alpha=0.15)
        if d["trace_collision"].notna().any():
            a_col.plot(d["episodes"], 100 * d["trace_collision"], color="k", ls="--", lw=0.8,
                       label=f"{label}: TRACE's estimate")
    a_sr.set(xlabel="training rollouts", ylabel="success (%)", ylim=(0, 105), title="GRPO: task success")
    a_col.set(xlabel="training rollouts", ylabel="collisions (%)", ylim=(0, 105),
              title="GRPO: collisions (mean +- seed sd)")
    a_col.legend(fontsize=7)
    return fig


def rollout_frames(frames: dict):
    """One held-out level-II layout: four frames (start, 1/3, 2/3, end) of each method's rollout (64x64 RGB)."""
    import matplotlib.pyplot as plt

    methods = [m for m in LABELS if m in frames]
    fig, axes = plt.subplots(len(methods), 5, figsize=(7.0, 1.5 * len(methods)), squeeze=False,
                             gridspec_kw={"width_ratios": [1.3, 1, 1, 1, 1]})
    for r, method in enumerate(methods):
        clip = frames[method]
        axes[r, 0].axis("off")
        axes[r, 0].text(1.0, 0.5, LABELS[method].replace(" (", "\n("), ha="right", va="center", fontsize=7,
                        transform=axes[r, 0].transAxes)
        for c, t in enumerate(np.linspace(0, len(clip) - 1, 4).round().astype(int), start=1):
            ax = axes[r, c]
            ax.imshow(clip[t], interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"step {t}", fontsize=7)
    fig.suptitle("held-out level-II layout (blue: obstacle, red: target, green: goal, yellow: distractor)", fontsize=8)
    return fig

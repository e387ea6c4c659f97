"""Figures drawn from the saved tables only."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.mental_imagery.tables import FAMILIES


def solve_rate_by_task(solve: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    variants = sorted(solve["variant"].unique())
    names = FAMILIES + ["mean"]
    width = 0.8 / len(variants)
    for k, v in enumerate(variants):
        s = solve[solve["variant"] == v].set_index("family").reindex(names)
        ax.bar(np.arange(len(names)) + k * width, s["solve_rate"], width, yerr=s["sd"].fillna(0),
               label={"A": "A actions only", "B": "B + visual supervision", "C": "C + visual tokens",
                      "blind": "best image-blind constant"}.get(v, v))
    ax.set_xticks(np.arange(len(names)) + width * (len(variants) - 1) / 2, names)
    ax.set_ylabel("solve rate (replay)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    return fig


def probe_acc_vs_step(probe: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(FAMILIES), figsize=(14, 3), sharey=False)
    p = probe[(probe["step"] > 0) & (probe["variant"] == probe["variant"].min())]
    for ax, family in zip(axes, FAMILIES):
        for kind, style in [("trained", "-o"), ("untrained", "--s"), ("shuffled", ":^"), ("copy", "-.x")]:
            s = p[(p["family"] == family) & (p["kind"] == kind)].sort_values("step")
            ax.plot(s["step"], s["acc"], style, label=kind, ms=4)
        ax.set_title(family)
        ax.set_xlabel("step t")
    axes[0].set_ylabel(f"probe cell accuracy (variant {p['variant'].min()})")
    axes[0].legend(fontsize=7)
    return fig


def decoded_states(decoded: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, len(FAMILIES), figsize=(12, 7))
    for col, family in enumerate(FAMILIES):
        d = decoded[decoded["family"] == family]
        if d.empty:
            continue
        r = d.sort_values(["example", "step"]).iloc[len(d[d["example"] == d["example"].min()]) - 1]
        boards = [np.array(r[k].split(), dtype=int) for k in ("start", "true", "decoded")]
        shape = {36: (6, 6), 6: (2, 3), 27: (3, 9), 16: (4, 4)}[len(boards[0])]  # rotation: three z-slices side by side
        for row, (title, b) in enumerate(zip(("start s_0", f"true s_{r['step']}", "probe-decoded"), boards)):
            grid = b.reshape(3, 3, 3).transpose(1, 0, 2).reshape(3, 9) if len(b) == 27 else b.reshape(shape)
            axes[row, col].imshow(grid, cmap="tab20", vmin=0, vmax=19)
            axes[row, col].set_xticks([])
            axes[row, col].set_yticks([])
            axes[row, col].set_title(f"{family}: {title}" if row == 0 else title, fontsize=8)
    return fig

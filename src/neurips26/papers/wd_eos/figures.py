"""Figures, drawn from saved tables only (tables/traces.csv: every checkpoint of every run; tables/main.csv: run metrics)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure


def _colors(values):
    cmap = plt.get_cmap("viridis")
    values = sorted(values)
    return {v: cmap(i / max(1, len(values) - 1)) for i, v in enumerate(values)}


def sharpness_traces(traces: pd.DataFrame, arch: str):
    """S(t) per lambda (coupled), one line per seed (runs stopped by the EoS rule have different lengths, so a seed
    mean would jump where a seed stops), with the 2/eta line and the shifted 2/eta - lambda lines (dashed)."""
    rows = traces[(traces.arch == arch) & (traces.decay == "coupled")]
    etas = sorted(rows.eta.unique())
    fig, axes = new_figure(ncols=len(etas))
    colors = _colors(rows.wd.unique())
    for ax, eta in zip(axes, etas):
        for wd, group in rows[rows.eta == eta].groupby("wd"):
            for i, (_, run) in enumerate(group.sort_values("step").groupby("seed")):
                ax.plot(run.step, run.sharpness, color=colors[wd], lw=0.9, label=f"lambda={wd:g}" if i == 0 else None)
            ax.axhline(2 / eta - wd, color=colors[wd], ls="--", lw=0.7)
        ax.axhline(2 / eta, color="k", ls=":", lw=1, label="2/eta")
        ax.set(xlabel="step", ylabel="sharpness S", title=f"{arch.upper()}, eta={eta:g} (dashed: 2/eta - lambda)")
    axes[0].legend(fontsize=7)
    return fig


def plateau_vs_wd(main: pd.DataFrame):
    """Late plateau of S divided by 2/eta - lambda, per arch; decoupled baseline as open markers; 0.8 line."""
    fig, axes = new_figure()
    ax = axes[0]
    for (arch, decay, eta), group in main.groupby(["arch", "decay", "eta"]):
        style = dict(marker="o", ls="-") if decay == "coupled" else dict(marker="s", ls="none", mfc="none")
        ax.errorbar(group.wd, group.plateau / group.threshold, yerr=group.plateau_sd / group.threshold,
                    label=f"{arch} {decay} eta={eta:g}", capsize=2, **style)
    ax.axhline(1.0, color="k", ls=":", lw=1)
    ax.axhline(0.8, color="r", ls="--", lw=0.8, label="0.8 x threshold")
    ax.set(xlabel="weight decay lambda", ylabel="plateau S / (2/eta - lambda)", title="where sharpness settles")
    ax.legend(fontsize=7)
    return fig


def alignment(traces: pd.DataFrame):
    """Seed-mean |cos(theta, grad S)| over training, per lambda; MLP left, CNN right."""
    rows = traces[traces.decay == "coupled"]
    fig, axes = new_figure(ncols=2)
    colors = _colors(rows.wd.unique())
    for ax, arch in zip(axes, ["mlp", "cnn"]):
        sub = rows[(rows.arch == arch) & (rows.eta == rows[rows.arch == arch].eta.max())]
        for wd, group in sub.groupby("wd"):
            mean = group.assign(a=group.alignment.abs()).groupby("step").a.mean()
            ax.plot(mean.index, mean.values, color=colors[wd], label=f"lambda={wd:g}")
        ax.set(xlabel="step", ylabel="|cos(theta, grad S)|", title=arch.upper())
    axes[0].legend(fontsize=7)
    return fig


def ntk_velocity(main: pd.DataFrame):
    """Late-training NTK kernel velocity (kernel distance per step, probe set) against lambda."""
    fig, axes = new_figure()
    ax = axes[0]
    for (arch, eta), group in main[main.decay == "coupled"].groupby(["arch", "eta"]):
        ax.errorbar(group.wd, group.kernel_velocity, yerr=group.kernel_velocity_sd, marker="o", capsize=2,
                    label=f"{arch} eta={eta:g}")
    ax.set(xlabel="weight decay lambda", ylabel="kernel velocity (late)", yscale="log", title="NTK stability")
    ax.legend(fontsize=7)
    return fig

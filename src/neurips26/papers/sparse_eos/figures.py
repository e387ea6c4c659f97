"""Figures, each drawn from one saved table (never from in-memory results); gaps are gap_counted (seed means over
the runs that count: fitted to the target and ending with S <= 2/eta, as in the claims), error bars the sd over
all seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.plotting import new_figure


def _sphere(main: pd.DataFrame, block: str) -> pd.DataFrame:
    return main[(main["experiment"] == "sphere") & (main["block"] == block)]


def _label(row) -> str:
    if row["arch"] == "fc":
        return "FC + weight decay" if row["wd"] > 0 else "FC"
    return f"LC, r = {int(row['r'])}"


def gap_vs_dim(main: pd.DataFrame):
    fig, (ax, ab) = new_figure(2)
    d = _sphere(main, "dim").copy()
    d["label"] = d.apply(_label, axis=1)
    for label, cell in d.groupby("label", sort=False):
        ax.errorbar(cell["d"], cell["gap_counted"], yerr=cell["gap_sd"], marker="o", capsize=2, label=label)
        ab.plot(cell["d"], cell["bound_counted"], marker="o", label=label)
    for a in (ax, ab):
        a.set_xscale("log", base=2)
        a.set_xticks(sorted(d["d"].unique()), [str(int(v)) for v in sorted(d["d"].unique())])
    ax.set(xlabel="input dimension d (unit sphere)", ylabel="test MSE - train MSE",
           title=f"generalization gap, eta = {d['eta'].iloc[0]:g}")
    ab.axhline(d["var_y"].mean(), color="grey", ls=":", label="Var y (trivial risk)")
    ab.set(xlabel="input dimension d", ylabel="bound (our reading, C = 1)", title="stability bound, counted runs")
    ab.legend(fontsize=7)
    ax.legend(fontsize=7)
    return fig


def gap_vs_receptive_field(main: pd.DataFrame):
    fig, (ax, ai) = new_figure(2)
    dims = _sphere(main, "receptive_field")["d"].unique()
    d = dims[0] if len(dims) else np.nan
    cells = main[(main["experiment"] == "sphere") & (main["d"] == d) & (main["eta"] == main.loc[
        main["block"] == "dim", "eta"].iloc[0]) & (main["wd"] == 0) & (main["block"] != "step_size")]
    cells = cells.sort_values("r")
    ax.errorbar(cells["r"], cells["gap_counted"], yerr=cells["gap_sd"], marker="o", capsize=2)
    ax.set_xscale("log", base=2)
    ax.set_xticks(cells["r"], [f"{int(r)}" + (" (FC)" if a == "fc" else "") for r, a in zip(cells["r"], cells["arch"])])
    ax.set(xlabel="receptive field r", ylabel="test MSE - train MSE", title=f"sphere, d = {int(d)}")
    img = main[(main["experiment"] == "images")]
    variants = list(dict.fromkeys(img["variant"]))
    groups = list(dict.fromkeys(zip(img["source"], img["arch"])))
    width = 0.8 / max(len(variants), 1)
    for i, v in enumerate(variants):
        vals = [img[(img["source"] == s) & (img["arch"] == a) & (img["variant"] == v)]["gap_counted"].mean()
                for s, a in groups]
        ai.bar(np.arange(len(groups)) + i * width, vals, width, label=v)
    ai.set_xticks(np.arange(len(groups)) + width * (len(variants) - 1) / 2, [f"{s}\n{a}" for s, a in groups], fontsize=7)
    ai.set(ylabel="test MSE - train MSE", title="image patches: natural vs unstructured")
    ai.legend(fontsize=7)
    return fig


def step_size(main: pd.DataFrame):
    fig, (ax, asharp) = new_figure(2)
    blocks = main[(main["experiment"] == "sphere") & (main["wd"] == 0)]
    dims = _sphere(main, "step_size")["d"].unique()
    cells = blocks[blocks["d"].isin(dims) & blocks["block"].isin(["step_size", "dim"])]
    cells = cells[(cells["arch"] == "fc") | (cells["r"] == _sphere(main, "dim").query("arch == 'lc'")["r"].iloc[0])]
    for arch, c in cells.sort_values("eta").groupby("arch"):
        ax.plot(c["eta"], c["gap_counted"], marker="o", label=arch.upper())
        asharp.plot(c["eta"], c["sharpness"], marker="o", label=f"{arch.upper()} sharpness")
    etas = np.sort(cells["eta"].unique())
    asharp.plot(etas, 2 / etas, "k:", label="2 / eta")
    for a in (ax, asharp):
        a.set_xscale("log", base=2)
    ax.set(xlabel="step size eta", ylabel="test MSE - train MSE", title="gap over the step-size sweep")
    asharp.set(xlabel="step size eta", ylabel="top Hessian eigenvalue at the end", title="stability check")
    ax.legend(fontsize=7)
    asharp.legend(fontsize=7)
    return fig


def patch_pca_spectrum(geo: pd.DataFrame):
    fig, (ax, ap) = new_figure(2)
    spec = geo[geo["measure"] == "spectrum"]
    for (s, v), c in spec.groupby(["source", "variant"], sort=False):
        ax.semilogy(c["x"], c["value"], marker=".", label=f"{s} {v}")
    ax.set(xlabel="component", ylabel="share of variance", title=f"patch PCA spectrum, r = {int(spec['r'].iloc[0])}")
    ax.legend(fontsize=6)
    pr = geo[geo["measure"] == "pr"]
    for (s, v), c in pr.groupby(["source", "variant"], sort=False):
        ap.plot(c["r"], c["value_over_dim"], marker="o", label=f"{s} {v}")
    ap.set(xlabel="patch side r", ylabel="participation ratio / r$^2$", ylim=(0, 1.05),
           title="effective dimension of the patches")
    return fig


def activation_coverage(geo: pd.DataFrame):
    fig, (ax,) = new_figure(width_per_col=5.2)
    cov = geo[geo["measure"] == "coverage"]
    for (s, v), c in cov.groupby(["source", "variant"], sort=False):
        ax.loglog(c["x"], c["value"], marker="o", ls="--" if s == "sphere" else "-",
                  label=f"{s} {v} (dim {int(c['dim'].iloc[0])})")
    ax.set(xlabel="fraction of points a random half-space activates", ylabel="mean g~(u, t)",
           title="activation coverage: stability weight of a half-space")
    ax.legend(fontsize=6)
    return fig

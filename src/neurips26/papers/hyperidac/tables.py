"""Tables from the run CSVs (one row per method x regime x seed x class x domain cell).

Metrics of one method x regime x seed, from its 40 cell accuracies on the balanced test cells:
    overall        accuracy under the training allocation's joint (cells weighted by their training counts n_train)
    cell_balanced  the mean of the cell accuracies (every class x domain cell weighted equally)
    worst_cell     the lowest cell accuracy (the paper's metric; reported, but one cell's test images decide it)
    worst_quarter  the mean accuracy of the k lowest cells, k = ceil(worst_fraction x number of cells) (10 of 40 at
                   worst_fraction 0.25): the worst-cell tail at a resolution of k cells' test images, the quantity the
                   worst-cell claims compare
    minority_cell  the mean accuracy of the minority cells: training count <= the minority_quantile of the counts
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.hyperidac.allocation import dci_allocation

METRICS = ("overall", "cell_balanced", "worst_cell", "worst_quarter", "minority_cell")
KEYS = ["method", "regime", "gamma", "seed"]


def table_allocation(cfg) -> pd.DataFrame:
    rows = []
    k, n_dom = 10, len(cfg.domains)
    for regime, gamma in cfg.regimes.items():
        counts = dci_allocation(int(cfg.n_train), k, n_dom, float(gamma), int(cfg.allocation.min_cell))
        row_dev = np.abs(counts.sum(1) - int(cfg.n_train) // k).max()
        col_dev = np.abs(counts.sum(0) - int(cfg.n_train) // n_dom).max()
        for c, d in np.ndindex(k, n_dom):
            rows.append({"regime": regime, "gamma": float(gamma), "cls": c, "domain": cfg.domains[d],
                         "count": int(counts[c, d]), "max_class_marginal_dev": int(row_dev),
                         "max_domain_marginal_dev": int(col_dev)})
    return pd.DataFrame(rows)


def _metrics(cells: pd.DataFrame, quantile: float, worst_fraction: float) -> pd.Series:
    minority = cells.n_train <= cells.n_train.quantile(quantile)
    k = max(1, int(np.ceil(worst_fraction * len(cells))))
    return pd.Series({"overall": float(np.average(cells.accuracy, weights=cells.n_train)),
                      "cell_balanced": float(cells.accuracy.mean()), "worst_cell": float(cells.accuracy.min()),
                      "worst_quarter": float(np.sort(cells.accuracy.to_numpy())[:k].mean()),
                      "minority_cell": float(cells.accuracy[minority].mean())})


def per_seed(runs: pd.DataFrame, cfg) -> pd.DataFrame:
    """One row per method x regime x seed: the metrics of its cells (the claims' paired differences use these)."""
    q, w = float(cfg.metrics.minority_quantile), float(cfg.metrics.worst_fraction)
    return runs.groupby(KEYS, sort=False).apply(lambda g: _metrics(g, q, w), include_groups=False).reset_index()


def _summary(runs: pd.DataFrame, cfg, methods: list[str]) -> pd.DataFrame:
    seeds = per_seed(runs[runs.method.isin(methods)], cfg)
    grouped = seeds.groupby(["method", "regime", "gamma"], sort=False)[list(METRICS)]
    mean, std = grouped.mean(), grouped.std(ddof=1).fillna(0.0).add_suffix("_sd")
    out = mean.join(std).reset_index()
    out["seeds"] = grouped.size().values
    order = {m: i for i, m in enumerate(methods)}
    return out.sort_values(["gamma", "method"], key=lambda s: s.map(order) if s.name == "method" else s)\
        .reset_index(drop=True)


def table_main(runs: pd.DataFrame, cfg) -> pd.DataFrame:
    return _summary(runs, cfg, [m for m in cfg.methods if not m.startswith("hyperidac_")])


def table_ablation(runs: pd.DataFrame, cfg) -> pd.DataFrame:
    """HyperIDAC and its ablations, then the component claims' positive controls (`<method>_ctl`, one regime)."""
    return _summary(runs, cfg, [m for m in cfg.methods if m.startswith("hyperidac")]
                    + [f"{m}_ctl" for m in cfg.control.methods])


def table_per_seed(runs: pd.DataFrame, cfg) -> pd.DataFrame:
    """Every method's metrics per regime and seed (tables/per_seed.csv)."""
    return per_seed(runs, cfg)


def table_cells(runs: pd.DataFrame, cfg) -> pd.DataFrame:
    """Cell accuracies averaged over seeds (the heatmap's table)."""
    return runs.groupby(["method", "regime", "gamma", "cls", "domain"], sort=False)\
        .agg(n_train=("n_train", "mean"), accuracy=("accuracy", "mean")).reset_index()


def table_pseudo_labels(pseudo: pd.DataFrame, cfg) -> pd.DataFrame:
    """Per method x regime x seed x epoch: the pseudo-labels the scheme assigns to the unlabelled pool, scored per cell.
    minority = the training allocation's lowest `minority_quantile` of cell counts (as minority_cell).
        pl_accuracy        correct / assigned, pooled over the cells
        pl_coverage        assigned / unlabelled rows, pooled
        pl_correct_share   mean over the cells of correct / unlabelled rows (a cell with nothing assigned counts 0)"""
    q = float(cfg.metrics.minority_quantile)
    rows = []
    for (method, regime, seed, epoch), g in pseudo.groupby(["method", "regime", "seed", "epoch"], sort=False):
        minority = g.n_train <= g.n_train.quantile(q)
        row = {"method": method, "regime": regime, "seed": seed, "epoch": epoch}
        for part, cells in (("minority", g[minority]), ("all", g)):
            row[f"{part}_pl_accuracy"] = float(cells.correct.sum() / max(cells.assigned.sum(), 1.0))
            row[f"{part}_pl_coverage"] = float(cells.assigned.sum() / max(cells.n.sum(), 1.0))
            row[f"{part}_pl_correct_share"] = float((cells.correct / cells.n.clip(lower=1)).mean())
        rows.append(row)
    return pd.DataFrame(rows)

"""The stages the Snakemake rules call (`python -m neurips26 hyperidac <stage> ...`): the feature cache, the runs (one
job per regime x seed, or per seed), every table in one job, one stage per figure, the claims."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.pipeline.artifacts import read_csvs, write_csv, write_npz
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seed_streams import derived_seed
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    prepared_data_dir,
    require_embedded,
)

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
data, experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.hyperidac", "data", "experiments", "figures", "paper_claims", "tables"
)

TABLES = ("allocation", "main", "ablation", "per_seed", "cells", "pseudo_labels")
FIGURES = ("acc_vs_dci", "cell_accuracy_heatmap")  # each drawn from the table workflow/rules/hyperidac.smk names


def features(ctx: StageContext) -> None:
    """--input data/raw/fashion_mnist/provenance.json --output features/seed<N>.npz --seed N: the seed's own feature
    cache (its extractor, candidates, renderings and test images; issue #51)"""
    require_embedded(ctx, "PACS, OfficeHome, VLCS, TerraIncognita and a CLIP backbone")
    import torch

    seed = ctx.require_seed()
    torch.use_deterministic_algorithms(True, warn_only=True)
    seed_everything(derived_seed(seed, "extractor"))
    folder = prepared_data_dir(ctx, "fashion_mnist")
    write_npz(ctx.output, data.build_features(folder, ctx.cfg, seed))


def run(ctx: StageContext) -> None:
    """--input features/seed<N>.npz --output runs/<part>/seed<N>.csv pseudo/<part>/seed<N>.csv (--seed N), or
    --input features/seed<N>.npz for every seed of the config, in its order, --output runs/all/seeds.csv
    pseudo/all/seeds.csv (no --seed); run.part = a regime, or `all` (every regime). Each seed reads its own feature
    cache. The second output holds the pseudo-labels' per-cell accuracy over epochs."""
    part = ctx.cfg.run.part
    if part != "all" and part not in ctx.cfg.regimes:
        raise UserError(f"run.part: {part!r} is neither `all` nor one of the regimes {', '.join(ctx.cfg.regimes)}")
    seeds = [ctx.seed] if ctx.seed is not None else [int(s) for s in ctx.cfg.seeds]
    if len(ctx.inputs) != len(seeds):
        raise UserError(f"run reads one feature cache per seed ({len(seeds)}): --input features/seed<N>.npz ...")
    import pandas as pd
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    regimes = list(ctx.cfg.regimes) if part == "all" else [str(part)]
    if len(ctx.outputs) != 2:
        raise UserError("run writes two files: --output runs/<part>/<which>.csv pseudo/<part>/<which>.csv")
    cells, pseudo = [], []
    for seed, path in zip(seeds, ctx.inputs):
        feats = data.load_features(path)
        seed_everything(seed)
        c, q = experiments.run_seed(feats, ctx.cfg, seed, regimes)
        cells.append(c)
        pseudo.append(q)
    write_csv(ctx.outputs[0], pd.concat(cells, ignore_index=True))
    write_csv(ctx.outputs[1], pd.concat(pseudo, ignore_index=True))


def all_tables(ctx: StageContext) -> None:
    """--input the run CSVs, then as many pseudo-label CSVs (pseudo/...) --output allocation.csv main.csv
    ablation.csv per_seed.csv cells.csv pseudo_labels.csv"""
    if [p.stem for p in ctx.outputs] != list(TABLES):
        raise UserError(f"tables writes --output {' '.join(t + '.csv' for t in TABLES)}")
    half = len(ctx.inputs) // 2
    if not ctx.inputs or len(ctx.inputs) % 2 or any(p.parent.parent.name != "pseudo" for p in ctx.inputs[half:]):
        raise UserError("tables needs --input with the run CSVs, then the same number of pseudo/... CSVs")
    runs, pseudo = read_csvs(ctx.inputs[:half]), read_csvs(ctx.inputs[half:])
    built = {"allocation": tables.table_allocation(ctx.cfg), "main": tables.table_main(runs, ctx.cfg),
             "ablation": tables.table_ablation(runs, ctx.cfg),
             "per_seed": tables.table_per_seed(runs, ctx.cfg), "cells": tables.table_cells(runs, ctx.cfg),
             "pseudo_labels": tables.table_pseudo_labels(pseudo, ctx.cfg)}
    for path in ctx.outputs:
        write_csv(path, built[path.stem])


STAGES: dict[str, Callable[[StageContext], None]] = {
    "features": features,
    "run": run,
    "tables": all_tables,
    **{f"figure_{name}": figure_stage(deferred(figures, name)) for name in FIGURES},
    "claims": claims_stage(deferred(paper_claims, "build"), ("allocation", "per_seed", "pseudo_labels")),
}

"""The stages the Snakemake rules call (`python -m neurips26 hyperidac <stage> ...`): the feature cache, the runs (one
job per regime x seed, or per seed), every table in one job, one stage per figure, the claims."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.artifacts import read_csvs, write_csv, write_npz
from neurips26.common.errors import UserError
from neurips26.common.lazy import deferred, lazy_modules
from neurips26.common.seeding import seed_everything
from neurips26.common.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    prepared_data_dir,
    require_embedded,
)

# Loaded on first use: each job imports only what its stage needs (common/lazy.py).
data, experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.hyperidac", "data", "experiments", "figures", "paper_claims", "tables"
)

TABLES = ("allocation", "main", "ablation", "per_seed", "cells")
FIGURES = ("acc_vs_dci", "cell_accuracy_heatmap")  # each drawn from the table workflow/rules/hyperidac.smk names


def features(ctx: StageContext) -> None:
    """--input data/raw/fashion_mnist/provenance.json --output features.npz"""
    require_embedded(ctx, "PACS, OfficeHome, VLCS, TerraIncognita and a CLIP backbone")
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    seed_everything(int(ctx.cfg.features.seed))
    folder = prepared_data_dir(ctx, "fashion_mnist")
    write_npz(ctx.output, data.build_features(folder, ctx.cfg))


def run(ctx: StageContext) -> None:
    """--input features.npz --output runs/<part>/seed<N>.csv (--seed N) or runs/all/seeds.csv (no --seed: every seed
    of the config); run.part = a regime, or `all` (every regime)"""
    part = ctx.cfg.run.part
    if part != "all" and part not in ctx.cfg.regimes:
        raise UserError(f"run.part: {part!r} is neither `all` nor one of the regimes {', '.join(ctx.cfg.regimes)}")
    if len(ctx.inputs) != 1:
        raise UserError("run reads one file: --input features.npz")
    import pandas as pd
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    regimes = list(ctx.cfg.regimes) if part == "all" else [str(part)]
    feats = data.load_features(ctx.inputs[0])
    frames = []
    for seed in [ctx.seed] if ctx.seed is not None else [int(s) for s in ctx.cfg.seeds]:
        seed_everything(seed)
        frames.append(experiments.run_seed(feats, ctx.cfg, seed, regimes))
    write_csv(ctx.output, pd.concat(frames, ignore_index=True))


def all_tables(ctx: StageContext) -> None:
    """--input the run CSVs --output allocation.csv main.csv ablation.csv per_seed.csv cells.csv"""
    if [p.stem for p in ctx.outputs] != list(TABLES):
        raise UserError(f"tables writes --output {' '.join(t + '.csv' for t in TABLES)}")
    if not ctx.inputs:
        raise UserError("tables needs --input with the run CSVs")
    runs = read_csvs(ctx.inputs)
    built = {"allocation": tables.table_allocation(ctx.cfg), "main": tables.table_main(runs, ctx.cfg),
             "ablation": tables.table_ablation(runs, ctx.cfg),
             "per_seed": tables.table_per_seed(runs, ctx.cfg), "cells": tables.table_cells(runs, ctx.cfg)}
    for path in ctx.outputs:
        write_csv(path, built[path.stem])


STAGES: dict[str, Callable[[StageContext], None]] = {
    "features": features,
    "run": run,
    "tables": all_tables,
    **{f"figure_{name}": figure_stage(deferred(figures, name)) for name in FIGURES},
    "claims": claims_stage(deferred(paper_claims, "build"), ("allocation", "per_seed")),
}

"""The stages the Snakemake rules call (`python -m neurips26 hyperidac <stage> ...`): the feature cache, the runs,
tables, figures, claims."""

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


def features(ctx: StageContext) -> None:
    """--input data/raw/fashion_mnist/provenance.json --output features.npz"""
    require_embedded(ctx, "PACS, OfficeHome, VLCS, TerraIncognita and a CLIP backbone")
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    seed_everything(int(ctx.cfg.features.seed))
    folder = prepared_data_dir(ctx, "fashion_mnist")
    write_npz(ctx.output, data.build_features(folder, ctx.cfg))


def run(ctx: StageContext) -> None:
    """--input features.npz --output runs/<regime>/seed<N>.csv; run.regime"""
    regime = ctx.cfg.run.regime
    if regime not in ctx.cfg.regimes:
        raise UserError(f"run.regime: {regime!r} is not one of {', '.join(ctx.cfg.regimes)}")
    if len(ctx.inputs) != 1:
        raise UserError("run reads one file: --input features.npz")
    seed = ctx.require_seed()
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    seed_everything(seed)
    write_csv(ctx.output, experiments.run_regime(data.load_features(ctx.inputs[0]), ctx.cfg, str(regime), seed))


def _from_runs(build: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if not ctx.inputs:
            raise UserError("a table stage needs --input with the run CSVs")
        write_csv(ctx.output, build(read_csvs(ctx.inputs), ctx.cfg))

    return stage


def allocation(ctx: StageContext) -> None:
    write_csv(ctx.output, tables.table_allocation(ctx.cfg))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "features": features,
    "run": run,
    "table_allocation": allocation,
    "table_cells": _from_runs(deferred(tables, "table_cells")),
    "table_main": _from_runs(deferred(tables, "table_main")),
    "table_ablation": _from_runs(deferred(tables, "table_ablation")),
    **{f"figure_{name}": figure_stage(draw) for name, draw in figures.FIGURES.items()},
    "claims": claims_stage(deferred(paper_claims, "build"), ("allocation", "main", "ablation")),
}

"""The stages the Snakemake rules call (`python -m neurips26 mixup_minority <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import StageContext, claims_stage, figure_stage, prepared_data_dir, table_stage

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
data, experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.mixup_minority", "data", "experiments", "figures", "paper_claims", "tables"
)


def run_lpm(ctx: StageContext) -> None:
    """--seed N --output runs/lpm/seed<N>.csv runs/lpm/gram_seed<N>.csv"""
    if len(ctx.outputs) != 2:
        raise UserError("run_lpm writes two files: --output runs/lpm/seed<N>.csv runs/lpm/gram_seed<N>.csv")
    seed = ctx.require_seed()
    seed_everything(seed)
    runs, grams = experiments.run_lpm(ctx.cfg, seed)
    write_csv(ctx.outputs[0], runs)
    write_csv(ctx.outputs[1], grams)


def run_lt(ctx: StageContext) -> None:
    """--input data/raw/<dataset>/provenance.json --seed N --output runs/lt/<dataset>/ratio<R>/seed<N>.csv, with
    run.dataset and run.ratio overrides."""
    from neurips26.common.models.device import resolve_device

    dataset, ratio = str(ctx.cfg.run.dataset), float(ctx.cfg.run.ratio)
    known = experiments.lt_datasets(ctx.cfg)
    if dataset not in known:
        raise UserError(f"mixup_minority: run.dataset={dataset!r} is not in lt.datasets.{ctx.cfg.data} "
                        f"({', '.join(known)})")
    folder = prepared_data_dir(ctx, dataset)
    seed = ctx.require_seed()
    seed_everything(seed)
    task = data.load_task(dataset, folder, ctx.cfg.lt, seed)
    write_csv(ctx.output, experiments.run_lt(ctx.cfg, task, dataset, ratio, seed, resolve_device(str(ctx.cfg.device))))


def run_hist(ctx: StageContext) -> None:
    write_csv(ctx.output, experiments.mixed_label_hist(ctx.cfg))


def table_ablation(ctx: StageContext) -> None:
    if len(ctx.inputs) != 2:
        raise UserError("table_ablation needs --input tables/lt_runs.csv tables/lpm_runs.csv")
    write_csv(ctx.output, tables.table_ablation(pd.read_csv(ctx.inputs[0]), pd.read_csv(ctx.inputs[1])))


def _sorted(keys: list[str]) -> Callable[[pd.DataFrame], pd.DataFrame]:
    return lambda frame: frame.sort_values(keys, kind="stable").reset_index(drop=True)


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run_lpm": run_lpm,
    "run_lt": run_lt,
    "run_hist": run_hist,
    "table_lt_runs": table_stage(_sorted(["dataset", "ratio", "seed"])),
    "table_lpm_runs": table_stage(_sorted(["ratio", "seed"])),
    "table_main": table_stage(deferred(tables, "table_main")),
    "table_lpm": table_stage(deferred(tables, "table_lpm")),
    "table_geometry": table_stage(deferred(tables, "table_geometry")),
    "table_ablation": table_ablation,
    "figure_minority_collapse_vs_ratio": figure_stage(deferred(figures, "minority_collapse_vs_ratio")),
    "figure_mixed_label_hist": figure_stage(deferred(figures, "mixed_label_hist")),
    "figure_feature_geometry": figure_stage(deferred(figures, "feature_geometry")),
    "claims": claims_stage(deferred(paper_claims, "build"), ("lpm_runs", "lt_runs")),
}

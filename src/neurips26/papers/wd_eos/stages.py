"""The stages the Snakemake rules call (`python -m neurips26 wd_eos <stage> ...`): one run per grid point, the tables,
the figures (from tables only) and the claims (from tables only)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from neurips26.common.models.device import resolve_device
from neurips26.common.pipeline.artifacts import read_csvs, write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    prepared_data_dir,
)
from neurips26.papers.wd_eos.grid import eos_window

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
data, experiments, figures, paper_claims, summary = lazy_modules(
    "neurips26.papers.wd_eos", "data", "experiments", "figures", "paper_claims", "summary"
)


def run(ctx: StageContext) -> None:
    """--input data/raw/<dataset>/provenance.json --output runs/<point>/seed<N>.csv; the point comes from run.* keys.
    The dataset follows `data`: datasets.embedded (digits) or datasets.real (CIFAR-10)."""
    folder = prepared_data_dir(ctx, str(ctx.cfg.datasets[ctx.cfg.data]))
    seed = ctx.require_seed()
    seed_everything(seed)
    split = data.load_split(folder, ctx.cfg, seed)  # the run's seed draws the split
    point = ctx.cfg.run
    trace = experiments.run(ctx.cfg, split, str(point.arch), str(point.decay), float(point.eta), float(point.wd), seed,
                            resolve_device(str(ctx.cfg.device)))
    write_csv(ctx.output, trace)


def table_traces(ctx: StageContext) -> None:
    if not ctx.inputs:
        raise UserError("table_traces needs --input with the per-run trace CSVs")
    traces = read_csvs(ctx.inputs).sort_values(summary.KEYS + ["seed", "step"], kind="stable")
    write_csv(ctx.output, traces)


def table_main(ctx: StageContext) -> None:
    if len(ctx.inputs) != 1:
        raise UserError("table_main reads one table: --input tables/traces.csv")
    s = ctx.cfg.summary
    windows = {arch: eos_window(ctx.cfg, arch) for arch in ctx.cfg.grid}  # as paper_claims.windows
    write_csv(ctx.output, summary.main_table(pd.read_csv(ctx.inputs[0]), float(s.sharpening_fraction),
                                             float(s.late_fraction), windows, float(s.flat_level)))


def table_runs(ctx: StageContext) -> None:
    """tables/runs.csv: one row of run metrics per run (the trend criteria read every run)."""
    if len(ctx.inputs) != 1:
        raise UserError("table_runs reads one table: --input tables/traces.csv")
    s = ctx.cfg.summary
    windows = {arch: eos_window(ctx.cfg, arch) for arch in ctx.cfg.grid}
    write_csv(ctx.output, summary.run_table(pd.read_csv(ctx.inputs[0]), float(s.sharpening_fraction),
                                            float(s.late_fraction), windows, float(s.flat_level)))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run": run,
    "table_traces": table_traces,
    "table_main": table_main,
    "table_runs": table_runs,
    "figure_sharpness_traces_mlp": figure_stage(lambda t: figures.sharpness_traces(t, "mlp")),
    "figure_sharpness_traces_cnn": figure_stage(lambda t: figures.sharpness_traces(t, "cnn")),
    "figure_plateau_vs_wd": figure_stage(deferred(figures, "plateau_vs_wd")),
    "figure_alignment": figure_stage(deferred(figures, "alignment")),
    "figure_ntk_velocity": figure_stage(deferred(figures, "ntk_velocity")),
    "claims": claims_stage(deferred(paper_claims, "build"), ("main", "runs")),
}

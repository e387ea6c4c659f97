"""The stages the Snakemake rules call (`python -m neurips26 prequential_mdl <stage> ...`): runs, tables, figures,
claims."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from neurips26.common.models.device import resolve_device
from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    prepared_data_dir,
    table_stage,
)

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
data, experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.prequential_mdl", "data", "experiments", "figures", "paper_claims", "tables"
)


def run(ctx: StageContext) -> None:
    """--input data/raw/<dataset>/provenance.json --output runs/<task>/noise<p>/seed<N>.csv; run.task, run.noise."""
    task, noise = ctx.cfg.run.task, ctx.cfg.run.noise
    if task not in ctx.cfg.tasks:
        raise UserError(f"run.task: {task!r} is not one of {', '.join(ctx.cfg.tasks)}")
    if noise is None or float(noise) not in [float(p) for p in ctx.cfg.sweep.label_noise]:
        raise UserError(f"run.noise: {noise!r} is not a label-noise level of the sweep {list(ctx.cfg.sweep.label_noise)}")
    seed = ctx.require_seed()
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    seed_everything(seed)
    folder = prepared_data_dir(ctx, data.dataset_of(ctx.cfg, str(task)))
    write_csv(ctx.output, experiments.run_group(ctx.cfg, str(task), float(noise), seed, folder,
                                                resolve_device(str(ctx.cfg.device))))


def control(ctx: StageContext) -> None:
    """--output tables/control_runs.csv: the positive control, every seed of the configuration in one job (seconds)."""
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    device = resolve_device(str(ctx.cfg.device))
    frames = []
    for seed in ctx.cfg.seeds:
        seed_everything(int(seed))
        frames.append(experiments.run_control(ctx.cfg, int(seed), device))
    write_csv(ctx.output, pd.concat(frames, ignore_index=True))


def _from_runs(build: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if len(ctx.inputs) != 1:
            raise UserError(f"stage {ctx.paper_id} tables read one table: --input tables/runs.csv")
        write_csv(ctx.output, build(pd.read_csv(ctx.inputs[0]), ctx.cfg))

    return stage


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run": run,
    "control": control,
    "table_runs": table_stage(deferred(tables, "table_runs")),
    "table_correlations": _from_runs(deferred(tables, "table_correlations")),
    "table_bound": _from_runs(lambda runs, cfg: tables.table_bound(runs)),
    **{f"figure_{name}": figure_stage(draw) for name, draw in figures.FIGURES.items()},
    "claims": claims_stage(deferred(paper_claims, "build"), ("correlations", "bound", "control_runs", "runs")),
}

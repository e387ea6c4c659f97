"""The stages the Snakemake rules call (`python -m neurips26 kondo_gate <stage> ...`): runs, tables, figures, claims."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything, set_threads
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    prepared_data_dir,
    table_stage,
)

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.kondo_gate", "experiments", "figures", "paper_claims", "tables"
)


def _run(experiment: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if len(ctx.outputs) != 2:
            raise UserError("a run stage writes two files: --output RUN.csv WALLCLOCK.csv")
        seed = ctx.require_seed()
        import torch

        set_threads(ctx.threads)
        torch.use_deterministic_algorithms(True, warn_only=True)
        seed_everything(seed)
        rows, wall = experiment(ctx.cfg, seed, prepared_data_dir(ctx, "kondo_gate_mnist") if ctx.inputs else None)
        write_csv(ctx.outputs[0], rows)
        write_csv(ctx.outputs[1], wall)

    return stage


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run_bandit": _run(deferred(experiments, "run_bandit")),
    "run_mnist": _run(deferred(experiments, "run_mnist")),
    "run_reversal": _run(deferred(experiments, "run_reversal")),
    **{f"table_{name}": table_stage(build) for name, build in tables.TABLES.items()},
    "table_wallclock": table_stage(deferred(tables, "table_wallclock")),
    **{f"figure_{name}": figure_stage(draw) for name, (_, draw) in figures.FIGURES.items()},
    "claims": claims_stage(deferred(paper_claims, "build"), ("main_seeds", "bandit_seeds")),
}

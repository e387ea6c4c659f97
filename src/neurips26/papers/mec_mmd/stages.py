"""The stages the Snakemake rules call (`python -m neurips26 mec_mmd <stage> ...`): runs, tables, figures, claims."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    figure_stage,
    require_embedded,
    table_stage,
    write_claims_and_metrics,
)

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.mec_mmd", "experiments", "figures", "paper_claims", "tables"
)


def _run(experiment: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        require_embedded(ctx, "the paper-scale datasets (sbibm tasks, CIFAR-10N)")
        seed = ctx.require_seed()
        seed_everything(seed)  # every draw below comes from explicit generators; this only pins global state too
        write_csv(ctx.output, experiment(ctx.cfg, seed))

    return stage


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run_bias": _run(deferred(experiments, "run_bias")),
    "run_rate": _run(deferred(experiments, "run_rate")),
    "run_estimation": _run(deferred(experiments, "run_estimation")),
    "run_testing": _run(deferred(experiments, "run_testing")),
    "table_main": table_stage(deferred(tables, "table_main")),
    "table_rate": table_stage(deferred(tables, "table_rate")),
    "table_estimation": table_stage(deferred(tables, "table_estimation")),
    "table_test_size": table_stage(deferred(tables, "table_test_size")),
    "figure_bias_vs_noise": figure_stage(deferred(figures, "bias_vs_noise")),
    "figure_rmse_vs_audit_size": figure_stage(deferred(figures, "rmse_vs_audit_size")),
    "figure_rate_loglog": figure_stage(deferred(figures, "rate_loglog")),
    "figure_param_estimation": figure_stage(deferred(figures, "param_estimation")),
    "figure_test_power": figure_stage(deferred(figures, "test_power")),
    "claims": lambda ctx: _claims(ctx),
}


def _claims(ctx: StageContext) -> None:
    """claims.json from tables/main.csv and the per-seed run CSVs (runs/<experiment>/seed<k>.csv, any order): each
    claim's statistic is computed per seed, and the seeds give its interval."""
    import pandas as pd

    from neurips26.common.pipeline.artifacts import read_csvs

    main = [p for p in ctx.inputs if p.name == "main.csv"]
    runs = {e: [p for p in ctx.inputs if p.parent.name == e] for e in ("bias", "rate", "estimation", "testing")}
    if len(main) != 1 or not all(runs.values()):
        raise UserError("claims needs --input tables/main.csv and runs/{bias,rate,estimation,testing}/seed*.csv")
    frames = {e: read_csvs(paths) for e, paths in runs.items()}
    write_claims_and_metrics(ctx, paper_claims.build(pd.read_csv(main[0]), **frames))

"""The stages the Snakemake rules call (`python -m neurips26 mec_mmd <stage> ...`): runs, tables, figures, claims."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.artifacts import write_csv
from neurips26.common.lazy import deferred, lazy_modules
from neurips26.common.seeding import seed_everything
from neurips26.common.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    require_embedded,
    table_stage,
)

# Loaded on first use: each job imports only what its stage needs (common/lazy.py).
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
    "claims": claims_stage(deferred(paper_claims, "build"), ("main", "rate", "estimation", "test_size"), with_config=False),
}

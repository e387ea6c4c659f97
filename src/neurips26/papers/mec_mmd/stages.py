"""The stages the Snakemake rules call (`python -m neurips26 mec_mmd <stage> ...`): runs, tables, figures, claims."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from neurips26.common.artifacts import read_csvs, write_csv, write_json
from neurips26.common.claims import write_claims
from neurips26.common.errors import UserError
from neurips26.common.plotting import save_figure
from neurips26.common.seeding import seed_everything
from neurips26.common.stage import StageContext
from neurips26.papers.mec_mmd import experiments, figures, paper_claims, tables


def _check_data(cfg) -> None:
    if cfg.data == "real":
        raise UserError("mec_mmd: data: real is not supported yet: the paper-scale datasets (sbibm tasks, CIFAR-10N) are "
                        "not wired; data: embedded is the supported mode")
    if cfg.data != "embedded":
        raise UserError(f"mec_mmd: config key 'data' is {cfg.data!r}; expected embedded")


def _run(experiment: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        _check_data(ctx.cfg)
        seed = ctx.require_seed()
        seed_everything(seed)  # every draw below comes from explicit generators; this only pins global state too
        write_csv(ctx.output, experiment(ctx.cfg, seed))

    return stage


def _table(build: Callable[[pd.DataFrame], pd.DataFrame]) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if not ctx.inputs:
            raise UserError("a table stage needs --input with the per-seed run CSVs")
        write_csv(ctx.output, build(read_csvs(ctx.inputs)))

    return stage


def _figure(draw: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if len(ctx.inputs) != 1:
            raise UserError("a figure stage reads exactly one table: give --input TABLE.csv")
        save_figure(draw(pd.read_csv(ctx.inputs[0])), ctx.output)

    return stage


def claims(ctx: StageContext) -> None:
    if len(ctx.inputs) != 4 or len(ctx.outputs) != 2:
        raise UserError("claims needs --input main.csv rate.csv estimation.csv test_size.csv "
                        "--output claims.json metrics.json")
    found, metrics = paper_claims.build(*[pd.read_csv(p) for p in ctx.inputs])
    write_claims(ctx.outputs[0], ctx.paper_id, ctx.cfg, found)
    write_json(ctx.outputs[1], metrics)


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run_bias": _run(experiments.run_bias),
    "run_rate": _run(experiments.run_rate),
    "run_estimation": _run(experiments.run_estimation),
    "run_testing": _run(experiments.run_testing),
    "table_main": _table(tables.table_main),
    "table_rate": _table(tables.table_rate),
    "table_estimation": _table(tables.table_estimation),
    "table_test_size": _table(tables.table_test_size),
    "figure_bias_vs_noise": _figure(figures.bias_vs_noise),
    "figure_rmse_vs_audit_size": _figure(figures.rmse_vs_audit_size),
    "figure_rate_loglog": _figure(figures.rate_loglog),
    "figure_param_estimation": _figure(figures.param_estimation),
    "figure_test_power": _figure(figures.test_power),
    "claims": claims,
}

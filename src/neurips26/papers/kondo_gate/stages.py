"""The stages the Snakemake rules call (`python -m neurips26 kondo_gate <stage> ...`): runs, tables, figures, claims."""

from __future__ import annotations

import json
from collections.abc import Callable

import pandas as pd

from neurips26.common.artifacts import read_csvs, write_csv, write_json
from neurips26.common.claims import _plain, write_claims
from neurips26.common.errors import UserError
from neurips26.common.plotting import save_figure
from neurips26.common.seeding import seed_everything, set_threads
from neurips26.common.stage import StageContext
from neurips26.papers.kondo_gate import experiments, figures, paper_claims, tables


def _data_dir(ctx: StageContext):
    """The folder data_prepare filled, from its provenance.json (given as --input); its mode must match the config."""
    if not ctx.inputs:
        return None
    provenance = ctx.inputs[0]
    if provenance.name != "provenance.json" or not provenance.is_file():
        raise UserError(f"expected --input data/raw/<dataset>/provenance.json, got {provenance}")
    mode = json.loads(provenance.read_text()).get("mode")
    if mode != ctx.cfg.data:
        raise UserError(f"{provenance} was prepared with data: {mode}, but the config says data: {ctx.cfg.data}")
    return provenance.parent


def _run(experiment: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if len(ctx.outputs) != 2:
            raise UserError("a run stage writes two files: --output RUN.csv WALLCLOCK.csv")
        seed = ctx.require_seed()
        import torch

        set_threads(ctx.threads)
        torch.use_deterministic_algorithms(True, warn_only=True)
        seed_everything(seed)
        rows, wall = experiment(ctx.cfg, seed, _data_dir(ctx))
        write_csv(ctx.outputs[0], rows)
        write_csv(ctx.outputs[1], wall)

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
    if len(ctx.inputs) != 2 or len(ctx.outputs) != 2:
        raise UserError("claims needs --input main.csv bandit.csv --output claims.json metrics.json")
    found, metrics = paper_claims.build(pd.read_csv(ctx.inputs[0]), pd.read_csv(ctx.inputs[1]), ctx.cfg)
    write_claims(ctx.outputs[0], ctx.paper_id, ctx.cfg, found)
    write_json(ctx.outputs[1], {k: {n: _plain(v) for n, v in d.items()} for k, d in metrics.items()})


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run_bandit": _run(experiments.run_bandit),
    "run_mnist": _run(experiments.run_mnist),
    "run_reversal": _run(experiments.run_reversal),
    **{f"table_{name}": _table(build) for name, build in tables.TABLES.items()},
    "table_wallclock": _table(tables.table_wallclock),
    **{f"figure_{name}": _figure(draw) for name, (_, draw) in figures.FIGURES.items()},
    "claims": claims,
}

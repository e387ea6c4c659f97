"""The stages the Snakemake rules call (`python -m neurips26 wd_eos <stage> ...`): one run per grid point, the tables,
the figures (from tables only) and the claims (from tables only)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pandas as pd

from neurips26.common.artifacts import read_csvs, write_csv, write_json
from neurips26.common.claims import write_claims
from neurips26.common.device import resolve_device
from neurips26.common.errors import UserError
from neurips26.common.plotting import save_figure
from neurips26.common.seeding import seed_everything
from neurips26.common.stage import StageContext
from neurips26.papers.wd_eos import data, experiments, figures, paper_claims, summary


def _check_data(cfg) -> None:
    if cfg.data == "real":
        raise UserError("wd_eos: data: real is not supported yet: Cohen et al.'s 5k CIFAR-10 subset has no verified sha256 "
                        "in config/datasets.yaml (paper_scale); data: embedded (scikit-learn digits) is the supported mode")
    if cfg.data != "embedded":
        raise UserError(f"wd_eos: config key 'data' is {cfg.data!r}; expected embedded")


def run(ctx: StageContext) -> None:
    """--input data/raw/digits/provenance.json --output runs/<point>/seed<N>.csv; the point comes from run.* keys."""
    _check_data(ctx.cfg)
    if len(ctx.inputs) != 1 or ctx.inputs[0].name != "provenance.json":
        raise UserError("wd_eos run needs --input data/raw/digits/provenance.json")
    provenance = json.loads(ctx.inputs[0].read_text())
    if provenance.get("dataset") != "digits":
        raise UserError(f"{ctx.inputs[0]}: expected the provenance of dataset 'digits', got {provenance.get('dataset')!r}")
    seed = ctx.require_seed()
    seed_everything(seed)
    split = data.load_split(ctx.inputs[0].parent, ctx.cfg)
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
    write_csv(ctx.output, summary.main_table(pd.read_csv(ctx.inputs[0]), float(s.sharpening_fraction),
                                             float(s.late_fraction)))


def _figure(draw: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if len(ctx.inputs) != 1:
            raise UserError("a figure stage reads exactly one table: give --input TABLE.csv")
        save_figure(draw(pd.read_csv(ctx.inputs[0])), ctx.output)

    return stage


def claims(ctx: StageContext) -> None:
    if len(ctx.inputs) != 1 or len(ctx.outputs) != 2:
        raise UserError("claims needs --input tables/main.csv --output claims.json metrics.json")
    found, metrics = paper_claims.build(pd.read_csv(ctx.inputs[0]), ctx.cfg)
    write_claims(ctx.outputs[0], ctx.paper_id, ctx.cfg, found)
    write_json(ctx.outputs[1], {k: (None if v != v else v) for k, v in metrics.items()})


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run": run,
    "table_traces": table_traces,
    "table_main": table_main,
    "figure_sharpness_traces_mlp": _figure(lambda t: figures.sharpness_traces(t, "mlp")),
    "figure_sharpness_traces_cnn": _figure(lambda t: figures.sharpness_traces(t, "cnn")),
    "figure_plateau_vs_wd": _figure(figures.plateau_vs_wd),
    "figure_alignment": _figure(figures.alignment),
    "figure_ntk_velocity": _figure(figures.ntk_velocity),
    "claims": claims,
}

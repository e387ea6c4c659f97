"""The stages the Snakemake rules call (`python -m neurips26 docptbench <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from neurips26.common.artifacts import write_csv, write_json, write_npz
from neurips26.common.errors import UserError
from neurips26.common.seeding import seed_everything
from neurips26.common.stage import StageContext, figure_stage, prepared_data_dir, table_stage, write_claims_and_metrics
from neurips26.papers.docptbench import experiments, figures, paper_claims, tables


def _check(ctx: StageContext) -> None:
    if ctx.cfg.data == "real":
        raise UserError("docptbench: data: real is not wired yet: the DocPTBench release (Hugging Face "
                        "topdu/DocPTBench) has no verified sha256 in config/datasets.yaml; data: embedded is supported")


def _run(kind: str) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        _check(ctx)
        manuals = prepared_data_dir(ctx, "r_doc_pdf")
        seed = ctx.require_seed()
        seed_everything(seed)
        if len(ctx.outputs) != 2:
            raise UserError("a run stage writes two files: --output RUN.csv CAMERA.json")
        rows, camera = experiments.run(kind, seed, ctx.cfg, manuals)
        write_csv(ctx.outputs[0], rows)
        write_json(ctx.outputs[1], camera)

    return stage


def examples(ctx: StageContext) -> None:
    _check(ctx)
    seed = ctx.require_seed()
    arrays = experiments.examples(seed, ctx.cfg)
    write_npz(ctx.output, {k: v[::2, ::2] for k, v in arrays.items()})


def figure_examples(ctx: StageContext) -> None:
    from neurips26.common.plotting import save_figure

    if len(ctx.inputs) != 1:
        raise UserError("figure_degradation_examples reads one file: --input examples.npz")
    with np.load(ctx.inputs[0], allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    save_figure(figures.degradation_examples(arrays), ctx.output)


def claims(ctx: StageContext) -> None:
    if len(ctx.inputs) != 2:
        raise UserError("claims needs --input parsing.csv translation.csv")
    parsing, translation = (pd.read_csv(p, dtype={"severity": str}) for p in ctx.inputs)
    write_claims_and_metrics(ctx, *paper_claims.build(parsing, translation, ctx.cfg))


STAGES: dict[str, Callable[[StageContext], None]] = {
    **{f"run_{kind}": _run(kind) for kind in experiments.KINDS},
    "examples": examples,
    "table_parsing": table_stage(tables.parsing),
    "table_translation": table_stage(tables.translation),
    "figure_edit_by_condition": figure_stage(figures.edit_by_condition),
    "figure_severity_curve": figure_stage(figures.severity_curve),
    "figure_degradation_examples": figure_examples,
    "claims": claims,
}

"""The stages the Snakemake rules call (`python -m neurips26 docptbench <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    figure_stage,
    npz_figure_stage,
    prepared_data_dir,
    table_stage,
    write_claims_and_metrics,
)

# Loaded on first use (common/pipeline/lazy.py): experiments brings OpenCV, the OCR engines and reportlab, figures brings
# matplotlib; a table, figure or claims job imports only what it needs.
experiments, figures, paper_claims, tables = lazy_modules("neurips26.papers.docptbench", "experiments", "figures",
                                                          "paper_claims", "tables")
KINDS = ("en", "es", "rman")   # experiments.KINDS (checked by a unit test)


def _check(ctx: StageContext) -> None:
    if ctx.cfg.data == "real":  # issue #59 item 6
        raise UserError("docptbench: data: real is not wired yet: the DocPTBench release (Hugging Face "
                        "topdu/DocPTBench) has no fetch entry or loader yet (paper_scale in config/datasets.yaml); data: "
                        "embedded is supported")


def _run(kind: str) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        from neurips26.common.pipeline.artifacts import write_csv, write_json

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
    from neurips26.common.pipeline.artifacts import write_npz

    _check(ctx)
    seed = ctx.require_seed()
    arrays = experiments.examples(seed, ctx.cfg)
    write_npz(ctx.output, {k: v[::2, ::2] for k, v in arrays.items()})


def claims(ctx: StageContext) -> None:
    import pandas as pd

    if len(ctx.inputs) != 1:
        raise UserError("claims needs --input pages.csv")
    pages = pd.read_csv(ctx.inputs[0], dtype={"severity": str, "seed": int})
    write_claims_and_metrics(ctx, *paper_claims.build(pages, ctx.cfg))


STAGES: dict[str, Callable[[StageContext], None]] = {
    **{f"run_{kind}": _run(kind) for kind in KINDS},
    "examples": examples,
    "table_parsing": table_stage(deferred(tables, "parsing")),
    "table_translation": table_stage(deferred(tables, "translation")),
    "table_pages": table_stage(deferred(tables, "pages")),
    "figure_edit_by_condition": figure_stage(deferred(figures, "edit_by_condition")),
    "figure_severity_curve": figure_stage(deferred(figures, "severity_curve")),
    "figure_degradation_examples": npz_figure_stage(deferred(figures, "degradation_examples")),
    "claims": claims,
}

"""The stages the Snakemake rules call (`python -m neurips26 docscope <stage> ...`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from neurips26.common.pipeline.artifacts import read_csvs, write_csv, write_text
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything, set_threads
from neurips26.common.pipeline.stage import StageContext, figure_stage, prepared_data_dir, write_claims_and_metrics

# Loaded on first use (common/pipeline/lazy): the benchmark generator brings reportlab, experiments pypdfium2 / rank-bm25 /
# MiniLM, figures matplotlib; a table or claims job needs none of them.
experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.docscope", "experiments", "figures", "paper_claims", "tables"
)
B = lazy_modules("neurips26.common.docbench", "doc_benchmark")


def _embedded_only(ctx: StageContext) -> None:
    if ctx.cfg.data == "real" or ctx.cfg.scale_name == "paper" and ctx.cfg.data == "real":
        raise UserError("docscope: data: real (the DocScope release) is not wired: no fetch entry or loader for a "
                        "public release yet (paper_scale in config/datasets.yaml); use data: embedded")  # fmt: skip


def benchmark(ctx: StageContext) -> None:
    """--input data/raw/docscope_bench/provenance.json --output <dir>/documents.json: the generated benchmark of a seed."""
    _embedded_only(ctx)
    prepared_data_dir(ctx, "docscope_bench")
    seed = ctx.require_seed()
    B.generate(ctx.output.parent, B.Spec.from_config(ctx.cfg.benchmark), seed)


def run(ctx: StageContext) -> None:
    """--input <bench>/documents.json --output runs/seed{s}.csv runs/trajectories_seed{s}.jsonl
    runs/calibration_seed{s}.csv: every system on the seed's benchmark, then the judge-calibration set."""
    seed = ctx.require_seed()
    seed_everything(seed)
    set_threads(ctx.threads)
    if len(ctx.outputs) != 3:
        raise UserError("run writes three files: --output seedN.csv trajectories_seedN.jsonl calibration_seedN.csv")
    embed = experiments.Embedder(int(ctx.cfg.retrieval.minilm_max_tokens))
    frame, trajectories = experiments.run_seed(ctx.cfg, ctx.inputs[0].parent, seed, embed)
    calibration = experiments.run_calibration(ctx.cfg, ctx.inputs[0].parent, seed)
    write_csv(ctx.outputs[0], frame)
    write_text(ctx.outputs[1], "".join(json.dumps(t) + "\n" for t in trajectories))
    write_csv(ctx.outputs[2], calibration)


def real_questions(ctx: StageContext) -> None:
    """--input data/raw/r_doc_pdf/provenance.json --output real_questions.jsonl (questions from the manuals' outlines)."""
    folder = prepared_data_dir(ctx, "r_doc_pdf")
    manuals = [folder / name for name in ctx.cfg.real.manuals]
    missing = [str(m) for m in manuals if not m.is_file()]
    if missing:
        raise UserError(f"docscope: config real.manuals names files the r_doc_pdf dataset lacks: {missing}")
    qs = B.real_questions(manuals, int(ctx.cfg.real.questions), int(ctx.cfg.seeds[0]))
    for q in qs:
        q["doc_path"] = Path(q["doc_path"]).name  # relative to the prepared folder: no machine paths in the artifact
    write_text(ctx.output, "".join(json.dumps(q) + "\n" for q in qs))


def run_real(ctx: StageContext) -> None:
    """--input data/raw/r_doc_pdf/provenance.json real_questions.jsonl --output runs/real.csv"""
    set_threads(ctx.threads)
    folder = prepared_data_dir(ctx, "r_doc_pdf")
    questions = experiments.load_jsonl(ctx.inputs[1])
    write_csv(ctx.output, experiments.run_real(ctx.cfg, questions, folder))


def _table(build: Callable) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        if not ctx.inputs:
            raise UserError("a table stage needs --input with the run CSVs")
        write_csv(ctx.output, build(read_csvs(ctx.inputs), ctx.cfg))

    return stage


def claims(ctx: StageContext) -> None:
    """--input runs/seed*.csv runs/calibration_seed*.csv: the claims' statistics are computed per seed from the run rows
    (the tables pool the seeds), with the same table functions."""
    calibration = [p for p in ctx.inputs if p.name.startswith("calibration_")]
    runs = [p for p in ctx.inputs if p.name.startswith("seed")]
    if not runs or not calibration or len(runs) + len(calibration) != len(ctx.inputs):
        raise UserError("claims needs --input runs/seedN.csv ... runs/calibration_seedN.csv ...")
    write_claims_and_metrics(
        ctx,
        paper_claims.build(
            read_csvs(runs), read_csvs(calibration), str(ctx.cfg.main_system), str(ctx.cfg.claims.region_system)
        ),
    )


STAGES: dict[str, Callable[[StageContext], None]] = {
    "benchmark": benchmark,
    "run": run,
    "real_questions": real_questions,
    "run_real": run_real,
    "table_main": _table(lambda f, cfg: tables.table_main(f)),
    "table_dispersion": _table(lambda f, cfg: tables.table_dispersion(f, str(cfg.main_system))),
    "table_oracle": _table(lambda f, cfg: tables.table_oracle(f, str(cfg.main_system))),
    "table_judge_kappa": _table(lambda f, cfg: tables.table_judge_kappa(f)),
    "table_real": _table(lambda f, cfg: tables.table_real(f)),
    "figure_stage_funnel": figure_stage(deferred(figures, "stage_funnel")),
    "figure_dispersion": figure_stage(deferred(figures, "dispersion")),
    "figure_oracle": figure_stage(deferred(figures, "oracle")),
    "claims": claims,
}

"""The stages the Snakemake rules call (`python -m neurips26 rldp <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.pipeline.artifacts import write_csv, write_torch
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    prepared_data_dir,
    require_embedded,
    table_stage,
)

# Loaded on first use (common/pipeline/lazy.py): experiments brings torch and transformers, tables scipy.stats, figures
# matplotlib; a job imports only what its stage needs.
experiments, figures, paper_claims, tables = lazy_modules("neurips26.papers.rldp", "experiments", "figures",
                                                          "paper_claims", "tables")

PAPER_SOURCES = "MATH-500 / GSM8K and the hub models (Qwen3-8B, R1-distill)"


def _outputs(ctx: StageContext, n: int, what: str):
    if len(ctx.outputs) != n:
        raise UserError(f"rldp {what} writes {n} files: --output {' '.join(['...'] * n)}")
    return ctx.outputs


def train(ctx: StageContext) -> None:
    require_embedded(ctx, PAPER_SOURCES)
    model_path, history_path = _outputs(ctx, 2, "train (model.pt history.csv)")
    seed = ctx.require_seed()  # one decoder per run seed; its training seed is derived from it (experiments.model_seed)
    seed_everything(experiments.model_seed(seed))
    state, history = experiments.train(ctx.cfg, seed)
    write_torch(model_path, state)
    write_csv(history_path, history)


def run(ctx: StageContext) -> None:
    require_embedded(ctx, PAPER_SOURCES)
    if len(ctx.inputs) != 1 or ctx.inputs[0].suffix != ".pt":
        raise UserError("rldp run reads the trained decoder: --input model.pt")
    outs = _outputs(ctx, 3, "run (rows.csv layers.csv timing.csv)")
    seed = ctx.require_seed()
    seed_everything(seed)
    for path, frame in zip(outs, experiments.run(ctx.cfg, seed, experiments.load(ctx.cfg, ctx.inputs[0]))):
        write_csv(path, frame)


def run_llm(ctx: StageContext) -> None:
    require_embedded(ctx, PAPER_SOURCES)
    outs = _outputs(ctx, 2, "run_llm (llm_runs.csv llm_layers.csv)")
    folder = prepared_data_dir(ctx, "ensemble_mi_mmlu")
    seed = ctx.require_seed()
    seed_everything(seed)
    for path, frame in zip(outs, experiments.run_llm(ctx.cfg, folder, seed)):
        write_csv(path, frame)


def table_layers(ctx: StageContext) -> None:
    """Decoder layer CSVs and the SmolLM2 layer CSVs (file names seed<s>_llm_layers.csv) in one table."""
    import pandas as pd

    frames = [pd.read_csv(p).assign(model="smollm2" if p.name.endswith("llm_layers.csv") else "decoder") for p in ctx.inputs]
    if not frames:
        raise UserError("table_layers needs --input with the per-seed layer CSVs and llm_layers CSVs")
    write_csv(ctx.output, tables.table_layers(pd.concat(frames, ignore_index=True)))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "train": train,
    "run": run,
    "run_llm": run_llm,
    "table_main": table_stage(deferred(tables, "table_main")),
    "table_frontier": table_stage(deferred(tables, "table_frontier")),
    "table_difficulty": table_stage(deferred(tables, "table_difficulty")),
    "table_timing": table_stage(deferred(tables, "table_timing")),
    "table_llm": table_stage(deferred(tables, "table_llm")),
    "table_llm_seeds": table_stage(deferred(tables, "table_llm_seeds")),
    "table_layers": table_layers,
    "figure_score_vs_difficulty": figure_stage(deferred(figures, "score_vs_difficulty")),
    "figure_layerwise_auroc": figure_stage(deferred(figures, "layerwise_auroc")),
    "figure_accuracy_cost_frontier": figure_stage(deferred(figures, "accuracy_cost_frontier")),
}
STAGES["claims"] = claims_stage(deferred(paper_claims, "build"), ("main", "llm_seeds", "timing"), with_config=False)

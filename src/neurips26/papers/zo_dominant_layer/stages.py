"""The stages the Snakemake rules call (`python -m neurips26 zo_dominant_layer <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    data_root,
    figure_stage,
    prepared_data_dir,
    table_stage,
)

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
data, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.zo_dominant_layer", "data", "figures", "paper_claims", "tables"
)

def model(ctx: StageContext) -> None:
    """--output a folder: SmolLM2 exported once as float32 safetensors (bit-identical to the GGUF load, checked), so
    that each run job loads it in ~2 s instead of ~30 s. Deleted by Snakemake once every run job is done (temp)."""
    from neurips26.common.models.llm import export_smollm2

    export_smollm2(ctx.output)


def second_model(ctx: StageContext) -> None:
    """The detector on the second model family (second_model: the MiniLM encoder, or at scale=paper a hub decoder) for
    one run seed (the dev prompts of that seed's split): --input the provenance.json of every task of data.task_names
    (that order), --output seed<s>_minilm_profile.csv, --seed."""
    names = data.task_names(ctx.cfg)
    if len(ctx.inputs) != len(names):
        raise UserError(f"second_model needs --input one provenance.json per task of {names}")
    seed = ctx.require_seed()
    tasks = [data.load_task(name, prepared_data_dir(replace(ctx, inputs=[path]), data.DATASETS[name]), ctx.cfg, seed)
             for name, path in zip(names, ctx.inputs)]
    from neurips26.papers.zo_dominant_layer import second_model as second

    write_csv(ctx.output, second.profile(ctx.cfg, tasks, data_root(ctx)).assign(seed=seed))


def _task(ctx: StageContext):
    name = ctx.cfg.get("task")
    if name not in data.DATASETS:
        raise UserError(f"unknown zo_dominant_layer task {name!r}; known: {', '.join(data.DATASETS)}")
    task = data.load_task(name, prepared_data_dir(ctx, data.DATASETS[name]), ctx.cfg, ctx.require_seed())
    seed_everything(ctx.require_seed())
    return task, (ctx.inputs[1] if len(ctx.inputs) > 1 else None)


def probe(ctx: StageContext) -> None:
    """One model x task x seed, no training: detector, ZO-signal diagnostics, propagation. --input the task's
    provenance.json [the exported SmolLM2 folder], --output layers.csv, task=<name>."""
    task, model_dir = _task(ctx)
    from neurips26.papers.zo_dominant_layer import experiments

    write_csv(ctx.output, experiments.run(ctx.cfg, str(ctx.cfg.model), task, ctx.require_seed(), model_dir,
                                          data_root(ctx)))


def train(ctx: StageContext) -> None:
    """One task x seed of fine-tuning: the layer sweep and the baselines (model train.model). --input the task's
    provenance.json [the exported SmolLM2 folder], --output sweep.csv curves.csv, task=<name>."""
    if len(ctx.outputs) != 2:
        raise UserError("train writes two files: --output sweep.csv curves.csv")
    task, model_dir = _task(ctx)
    from neurips26.papers.zo_dominant_layer import sweep

    runs, curves = sweep.run(ctx.cfg, task, ctx.require_seed(), model_dir, data_root(ctx))
    write_csv(ctx.outputs[0], runs)
    write_csv(ctx.outputs[1], curves)


STAGES: dict[str, Callable[[StageContext], None]] = {
    "model": model,
    "second_model": second_model,
    "probe": probe,
    "train": train,
    **{f"table_{name}": table_stage(build) for name, build in tables.TABLES.items()},
    **{f"figure_{name}": figure_stage(draw) for name, (_, draw) in figures.FIGURES.items()},
    "claims": claims_stage(deferred(paper_claims, "build"),
                           ("layers_seeds", "sweep_seeds", "curves_seeds", "detector_seeds")),
}

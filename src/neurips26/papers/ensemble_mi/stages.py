"""The stages the Snakemake rules call (`python -m neurips26 ensemble_mi <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import lazy_modules
from neurips26.common.pipeline.seed_streams import derived_seed
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    data_root,
    figure_stage,
    prepared_data_dir,
    table_stage,
    write_claims_and_metrics,
)

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
data, experiments, figures, paper_claims, predictions, tables = lazy_modules(
    "neurips26.papers.ensemble_mi", "data", "experiments", "figures", "paper_claims", "predictions", "tables"
)

def _task(ctx: StageContext, name: str, seed: int):
    if name not in data.DATASETS:
        raise UserError(f"unknown ensemble_mi task {name!r}; known: {', '.join(data.DATASETS)}")
    return data.load_task(name, prepared_data_dir(ctx, data.DATASETS[name]), ctx.cfg, seed)


def predict(family: str) -> Callable[[StageContext], None]:
    """Classical, MiniLM or bagged members of one task and seed: --input its provenance.json, --seed N, --output one
    CSV, task=<name>. The seed draws the split (data.load_task) and the members' randomness (stream `members`)."""

    def stage(ctx: StageContext) -> None:
        from neurips26.papers.ensemble_mi import bagged, embedding, members

        name = ctx.cfg.get("task")
        seed = ctx.require_seed()
        member_seed = derived_seed(seed, "members")
        if family == "bagged":  # a longer training split; the pool and the first tasks.<name>.train texts are the same
            b = ctx.cfg.bagged
            spec = b[name]
            need = int(spec.anchor) + int(b.bags) * int(spec.bag)
            from omegaconf import OmegaConf

            cfg = OmegaConf.merge(ctx.cfg, {"tasks": {name: {"train": max(need, int(ctx.cfg.tasks[name].train))}}})
            task = _task(StageContext(ctx.paper_id, cfg, ctx.inputs, ctx.outputs), name, seed)
            made = bagged.bagged_members(task, member_seed, int(spec.anchor), int(b.copies), float(b.drop), int(b.bags),
                                         int(spec.bag))
            write_csv(ctx.output, predictions.frame(task, made))
            return
        task = _task(ctx, name, seed)
        if family == "classic":
            if task.pool.options:
                made = members.choice_members(task, member_seed)
            else:
                made = members.text_members(task, member_seed, int(ctx.cfg.members.copies), float(ctx.cfg.members.drop))
        else:
            templates = list(ctx.cfg.minilm.templates.get(name, [])) if ctx.cfg.minilm.get("templates") else []
            made = embedding.minilm_members(task, int(ctx.cfg.minilm.train), int(ctx.cfg.minilm.max_tokens), templates)
        write_csv(ctx.output, predictions.frame(task, made))

    return stage


def _lm_members(ctx: StageContext, stage: str, load, name: str, batch: int | None = None) -> None:
    """A causal LM's members on every task of a seed, the model loaded once (`load()` -> tokenizer, model): --input the
    tasks' provenance.json in the order of data.task_names, --seed N, --output one CSV per task in the same order. Its
    members are its (prefix, suffix) prompts (llm.py), named `<name>_<prefix>_<suffix>`."""
    import torch
    from omegaconf import OmegaConf

    from neurips26.papers.ensemble_mi import llm

    names = data.task_names(ctx.cfg)
    if len(ctx.inputs) != len(names) or len(ctx.outputs) != len(names):
        raise UserError(f"{stage} needs one --input provenance.json and one --output per task of {names}")
    seed = ctx.require_seed()
    member_seed = derived_seed(seed, "members")
    torch.manual_seed(member_seed)
    tokenizer, model = load()
    for task_name, source, target in zip(names, ctx.inputs, ctx.outputs):
        task = _task(StageContext(ctx.paper_id, ctx.cfg, [source], [target]), task_name, seed)
        spec = OmegaConf.create({**OmegaConf.to_container(ctx.cfg.llm), "prefixes": list(ctx.cfg.llm.prefixes[task_name]),
                                 **({"batch": batch} if batch else {})})
        write_csv(target, predictions.frame(task, llm.llm_members(task, model, tokenizer, spec, member_seed, name)))


def predict_llm(ctx: StageContext) -> None:
    """The bundled SmolLM2's members (one job per seed: loading the model costs ~20 s); see _lm_members."""
    from neurips26.common.models.llm import load_smollm2

    _lm_members(ctx, "predict_llm", load_smollm2, "smollm2")


def predict_pool(ctx: StageContext) -> None:
    """One model of the paper's LLM pool (llm_pool.models[model=<key>], from the hub at its pinned commit, on the device
    `device` gives) on every task of a seed; see _lm_members."""
    from neurips26.common.models.device import resolve_device
    from neurips26.common.models.hub_llm import load_hub_causal_lm

    key, pool = str(ctx.cfg.get("model")), ctx.cfg.llm_pool
    if key not in pool.models:
        raise UserError(f"predict_pool needs model=<one of {', '.join(pool.models)}>, got {key!r}")
    root = data_root(ctx)

    def load():
        return load_hub_causal_lm(str(pool.models[key]), root, resolve_device(str(ctx.cfg.device)), str(pool.dtype))

    _lm_members(ctx, "predict_pool", load, key, int(pool.batch))


def run_real(ctx: StageContext) -> None:
    """One task x seed: --input the task's cached prediction CSVs of that seed (any families), --output the run CSV."""
    if not ctx.inputs:
        raise UserError("run_real needs --input with the task's cached prediction CSVs")
    pool = predictions.merge([pd.read_csv(p) for p in ctx.inputs])
    seed_everything(ctx.require_seed())
    write_csv(ctx.output, experiments.run_real(ctx.cfg, ctx.cfg.get("task"), pool, ctx.require_seed()))


def run_sim(ctx: StageContext) -> None:
    seed_everything(ctx.require_seed())
    write_csv(ctx.output, experiments.run_simulator(ctx.cfg, int(ctx.cfg.get("classes")), ctx.require_seed()))


def run_floor(ctx: StageContext) -> None:
    seed_everything(ctx.require_seed())
    write_csv(ctx.output, experiments.run_floor(ctx.cfg, ctx.require_seed()))


def table_selected_models(ctx: StageContext) -> None:
    from neurips26.common.pipeline.artifacts import read_csvs

    if not ctx.inputs:
        raise UserError("table_selected_models needs --input with the run CSVs")
    write_csv(ctx.output, tables.table_selected_models(read_csvs(ctx.inputs), int(ctx.cfg.evaluation.table_budget)))


def claims(ctx: StageContext) -> None:
    """--input every run CSV (simulator, real pools, floor): the claims compare per-seed values, which the tables
    (means over seeds) no longer hold."""
    from neurips26.common.pipeline.artifacts import read_csvs

    if not ctx.inputs:
        raise UserError("claims needs --input with the run CSVs (runs/<run>/seed<N>.csv)")
    write_claims_and_metrics(ctx, paper_claims.build(read_csvs(ctx.inputs), ctx.cfg))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "predict_classic": predict("classic"),
    "predict_minilm": predict("minilm"),
    "predict_bagged": predict("bagged"),
    "predict_llm": predict_llm,
    "predict_pool": predict_pool,
    "run_real": run_real,
    "run_sim": run_sim,
    "run_floor": run_floor,
    **{f"table_{name}": table_stage(build) for name, build in tables.TABLES.items()},
    **{f"figure_{name}": figure_stage(draw) for name, (_, draw) in figures.FIGURES.items()},
    "table_selected_models": table_selected_models,
    "claims": claims,
}

"""The stages the Snakemake rules call (`python -m neurips26 dofp_lut <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from neurips26.common.pipeline.artifacts import read_csvs, write_csv, write_npz
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import (
    StageContext,
    figure_stage,
    prepared_data_dir,
    require_embedded,
    write_claims_and_metrics,
)

DATASET = "dofp_lut_skimage"


def run(ctx: StageContext) -> None:
    """One seed: --input provenance.json --output seed.csv seed.npz."""
    from neurips26.common.pipeline.seeding import seed_everything
    from neurips26.papers.dofp_lut import experiments

    require_embedded(ctx, "the KAUST / Tokyo Tech / Wen colour-polarization datasets")
    if len(ctx.outputs) != 2:
        raise UserError("run writes two files: --output RUN.csv ARRAYS.npz")
    seed = ctx.require_seed()
    seed_everything(seed)  # every op used is deterministic on CPU (use_deterministic_algorithms would import inductor: 5 s)
    rows, arrays = experiments.run(prepared_data_dir(ctx, DATASET), ctx.cfg, seed)
    write_csv(ctx.outputs[0], rows)
    write_npz(ctx.outputs[1], arrays)


def run_ablation(drop: str) -> Callable[[StageContext], None]:
    """The teacher retrained without one stage: --input provenance.json --seed N --output ablation.csv."""

    def stage(ctx: StageContext) -> None:
        from neurips26.common.pipeline.seeding import seed_everything
        from neurips26.papers.dofp_lut import experiments

        require_embedded(ctx, "the KAUST / Tokyo Tech / Wen colour-polarization datasets")
        seed = ctx.require_seed()
        seed_everything(seed)
        write_csv(ctx.output, experiments.run_ablation(prepared_data_dir(ctx, DATASET), ctx.cfg, seed, drop))

    return stage


def _timing_inputs(ctx: StageContext):
    """The models of the first seed's run and the first test scene (the frame every method is timed on)."""
    from neurips26.papers.dofp_lut import experiments, timing
    from neurips26.papers.dofp_lut.data import make_scenes

    if len(ctx.inputs) != 2 or ctx.inputs[1].suffix != ".npz":
        raise UserError("timing stages need --input provenance.json RUN.npz")
    seed = int(ctx.cfg.seeds[0])
    scene = make_scenes(prepared_data_dir(ctx, DATASET), [ctx.cfg.images.test[0]],
                        seed + experiments.TEST_SEED_OFFSET, ctx.cfg.scene)[0]
    teacher, luts, generic = timing.load_models(np.load(ctx.inputs[1], allow_pickle=False), ctx.cfg)
    runs = {name: run for name, (_, run) in experiments.methods(luts, generic, teacher, ctx.cfg).items()}
    names = {*ctx.cfg.timing.methods, *ctx.cfg.throughput.methods} if ctx.cfg.timing.enabled \
        else set(ctx.cfg.throughput.methods)
    runs.update(timing.lut_runs(luts, ctx.cfg, names))  # dofp_lut = the fused kernel; dofp_lut_torch = the reference
    return runs, scene.raw


def timing_stage(ctx: StageContext) -> None:
    """ms per megapixel per method (wall-clock; outside the manifest)."""
    from neurips26.papers.dofp_lut import timing

    runs, raw = _timing_inputs(ctx)
    write_csv(ctx.output, timing.time_methods(runs, raw, ctx.cfg))


def throughput_stage(ctx: StageContext) -> None:
    """MP/s per method, frame size and thread count, with the memory-bandwidth bound (benchmark, not a claim)."""
    from neurips26.papers.dofp_lut import timing

    runs, raw = _timing_inputs(ctx)
    write_csv(ctx.output, timing.throughput(runs, raw, ctx.cfg, ctx.threads))


def table_main(ctx: StageContext) -> None:
    runs = [p for p in ctx.inputs if p.name != "timing.csv"]
    timing_files = [p for p in ctx.inputs if p.name == "timing.csv"]
    if not runs or len(timing_files) != 1:
        raise UserError("table_main needs --input runs/seed*.csv timing.csv")
    from neurips26.papers.dofp_lut import tables

    write_csv(ctx.output, tables.table_main(read_csvs(runs), pd.read_csv(timing_files[0])))


def table_ablation(ctx: StageContext) -> None:
    from neurips26.papers.dofp_lut import tables

    if not ctx.inputs:
        raise UserError("table_ablation needs --input runs/seedN.csv runs/ablation_*_seedN.csv")
    write_csv(ctx.output, tables.table_ablation(read_csvs(ctx.inputs)))


def figure_maps(ctx: StageContext) -> None:
    from neurips26.common.pipeline.plotting import save_figure
    from neurips26.papers.dofp_lut import figures

    if len(ctx.inputs) != 1 or ctx.inputs[0].suffix != ".npz":
        raise UserError("figure_dolp_aolp_maps reads one run's arrays: --input runs/seedN.npz")
    save_figure(figures.dolp_aolp_maps(np.load(ctx.inputs[0], allow_pickle=False)), ctx.output)


def claims(ctx: StageContext) -> None:
    """--input tables/main.csv tables/ablation.csv runs/seed*.csv runs/ablation_*_seed*.csv (the per-seed values)."""
    runs = [p for p in ctx.inputs[2:] if p.name.startswith("seed")]
    ablations = [p for p in ctx.inputs[2:] if p.name.startswith("ablation_")]
    if [p.name for p in ctx.inputs[:2]] != ["main.csv", "ablation.csv"] or not runs or not ablations \
            or len(runs) + len(ablations) != len(ctx.inputs) - 2:
        raise UserError("claims needs --input tables/main.csv tables/ablation.csv runs/seed*.csv "
                        "runs/ablation_*_seed*.csv")
    from neurips26.papers.dofp_lut import paper_claims

    write_claims_and_metrics(ctx, *paper_claims.build(pd.read_csv(ctx.inputs[0]), pd.read_csv(ctx.inputs[1]),
                                                      read_csvs(runs), read_csvs(ablations), ctx.cfg))


def _figure(name: str) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        from neurips26.papers.dofp_lut import figures

        figure_stage(figures.FIGURES[name])(ctx)

    return stage


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run": run,
    **{f"run_ablation_{s}": run_ablation(s) for s in "APH"},
    "timing": timing_stage,
    "throughput": throughput_stage,
    "table_main": table_main,
    "table_ablation": table_ablation,
    **{f"figure_{name}": _figure(name) for name in ("pareto_quality_runtime", "component_ablation")},
    "figure_dolp_aolp_maps": figure_maps,
    "claims": claims,
}

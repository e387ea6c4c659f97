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


def _timing_inputs(ctx: StageContext, names):
    """The equal-terms pipelines among `names` (the first seed's models) and the first test scene as the camera-native
    uint16 frame every method is timed on."""
    from neurips26.papers.dofp_lut import experiments, pipelines, timing
    from neurips26.papers.dofp_lut.data import make_scenes

    if len(ctx.inputs) != 2 or ctx.inputs[1].suffix != ".npz":
        raise UserError("timing stages need --input provenance.json RUN.npz")
    seed = int(ctx.cfg.seeds[0])
    scene = make_scenes(prepared_data_dir(ctx, DATASET), [ctx.cfg.images.test[0]],
                        seed + experiments.TEST_SEED_OFFSET, ctx.cfg.scene)[0]
    teacher, luts, generic = timing.load_models(np.load(ctx.inputs[1], allow_pickle=False), ctx.cfg)
    torch_runs = {name: run for name, (_, run) in experiments.methods(luts, generic, teacher, ctx.cfg).items()}
    torch_runs["dofp_lut_torch"] = torch_runs["dofp_lut"]  # in the run jobs `dofp_lut` is the torch reference
    return pipelines.pipelines(torch_runs, luts, ctx.cfg, list(names)), pipelines.native_mosaic(scene.raw)


def timing_stage(ctx: StageContext) -> None:
    """--output timing.csv determinism.csv: equal-terms ms per megapixel per method, and the output digests of the
    kernel and the torch reference over runs and thread counts (wall-clock and digests; outside the manifest)."""
    from neurips26.papers.dofp_lut import determinism, timing

    if len(ctx.outputs) != 2:
        raise UserError("timing writes two files: --output timing.csv determinism.csv")
    cfg = ctx.cfg
    d = cfg.determinism
    timed = [*cfg.timing.methods, *cfg.claims.bilinear_references] if cfg.timing.enabled else []
    pipes, raw16 = _timing_inputs(ctx, dict.fromkeys([*timed, *d.implementations]))
    write_csv(ctx.outputs[0], timing.time_methods(pipes, raw16, cfg))
    frame = timing.tile(raw16, *(int(v) for v in d.frame))
    chosen = {n: pipes[n] for n in d.implementations}
    write_csv(ctx.outputs[1], determinism.digest_rows(chosen, frame, sorted({1, ctx.threads}), int(d.runs),
                                                      timing.set_threads))


def throughput_stage(ctx: StageContext) -> None:
    """--output throughput.csv realtime.csv roofline.csv: MP/s per method, frame size and thread count with the
    memory-bandwidth bound (benchmark), frames per second on the sensor frame (the real-time claim), and the kernel's
    roofline (memory, compute and gather roofs measured in this job; empty when config roofline.enabled is off)."""
    from neurips26.papers.dofp_lut import pipelines, timing

    if len(ctx.outputs) != 3:
        raise UserError("throughput writes three files: --output throughput.csv realtime.csv roofline.csv")
    cfg = ctx.cfg
    pipes, raw16 = _timing_inputs(ctx, dict.fromkeys([*cfg.throughput.methods, *cfg.realtime.methods]))
    write_csv(ctx.outputs[0], timing.throughput(pipes, raw16, cfg, ctx.threads))
    write_csv(ctx.outputs[1], timing.realtime(pipes, raw16, cfg, ctx.threads))
    roof = pd.DataFrame()
    if cfg.roofline.enabled:
        from neurips26.papers.dofp_lut import kernel, roofline

        _, luts, _ = timing.load_models(np.load(ctx.inputs[1], allow_pickle=False), cfg)
        roof = roofline.table(kernel.tables(luts), cfg.index, pipelines.to_float(raw16), cfg.roofline.frames,
                              sorted({1, ctx.threads}), int(cfg.roofline.repeats),
                              lambda t: timing.bandwidth_gb_s(t, int(cfg.throughput.bandwidth_mb)))
    write_csv(ctx.outputs[2], roof)


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
    """--input tables/main.csv tables/ablation.csv runs/seed*.csv runs/ablation_*_seed*.csv (the per-seed values)
    timing.csv determinism.csv realtime.csv (the equal-terms times, output digests and sensor frame rates)."""
    names = [p.name for p in ctx.inputs]
    tail = ["timing.csv", "determinism.csv", "realtime.csv"]
    middle = ctx.inputs[2:-3]
    runs = [p for p in middle if p.name.startswith("seed")]
    ablations = [p for p in middle if p.name.startswith("ablation_")]
    if names[:2] != ["main.csv", "ablation.csv"] or names[-3:] != tail or not runs or not ablations \
            or len(runs) + len(ablations) != len(middle):
        raise UserError("claims needs --input tables/main.csv tables/ablation.csv runs/seed*.csv "
                        "runs/ablation_*_seed*.csv timing.csv determinism.csv realtime.csv")
    from neurips26.papers.dofp_lut import paper_claims

    speed = {name.removesuffix(".csv"): pd.read_csv(path) for name, path in zip(tail, ctx.inputs[-3:], strict=True)}
    write_claims_and_metrics(ctx, *paper_claims.build(pd.read_csv(ctx.inputs[0]), pd.read_csv(ctx.inputs[1]),
                                                      read_csvs(runs), read_csvs(ablations), ctx.cfg, **speed))


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

"""The stages the Snakemake rules call (`python -m neurips26 mental_imagery <stage> ...`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from neurips26.common.pipeline.artifacts import read_csvs, write_csv, write_npz
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred
from neurips26.common.pipeline.seeding import seed_everything, set_threads
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    prepared_data_dir,
    require_embedded,
    table_stage,
)
from neurips26.papers.mental_imagery import figures, paper_claims, tables

RUSH, PHOTOS = "rush_hour_18k", "dofp_lut_skimage"


def puzzles(ctx: StageContext) -> None:
    """The puzzles of one seed, solved once and cached for every variant's run job, and the seed's VLM pretraining
    (pretrain.py: describe the start boards; no actions, no intermediate states), the checkpoint every variant is
    fine-tuned from."""
    require_embedded(ctx, "the paper's twelve task suites")
    if len(ctx.inputs) != 2 or len(ctx.outputs) != 2:
        raise UserError("puzzles needs --input data/raw/rush_hour_18k/provenance.json "
                        "data/raw/dofp_lut_skimage/provenance.json and --output PUZZLES.npz PRETRAIN.npz")
    rush = prepared_data_dir(dataclasses.replace(ctx, inputs=[ctx.inputs[0]]), RUSH)
    photos = prepared_data_dir(dataclasses.replace(ctx, inputs=[ctx.inputs[1]]), PHOTOS)
    from neurips26.papers.mental_imagery import data

    seed = ctx.require_seed()
    parts = data.make_puzzles(ctx.cfg, seed, rush / "rush_18k.txt", photos)
    data.save_puzzles(ctx.outputs[0], parts)
    import numpy as np

    arrays = {"curve": np.zeros((0, 3))}  # pretrain.steps 0: no pretraining (torch is not even imported)
    if int(ctx.cfg.pretrain.steps) > 0:
        set_threads(ctx.threads)
        import torch

        torch.set_num_threads(ctx.threads)
        from neurips26.papers.mental_imagery import pretrain

        seed_everything(seed)
        arrays = pretrain.to_arrays(pretrain.run_pretraining(ctx.cfg, seed, parts))
    write_npz(ctx.outputs[1], arrays, compress=False)


def run(ctx: StageContext) -> None:
    """The variants of cfg.variants (the rule passes one group of run_groups) on the cached puzzles of one seed."""
    require_embedded(ctx, "the paper's twelve task suites")
    if len(ctx.inputs) != 2 or len(ctx.outputs) != 2:
        raise UserError("run needs --input PUZZLES.npz PRETRAIN.npz (the puzzles stage) and --output RUN.csv "
                        "DECODED.csv")
    set_threads(ctx.threads)
    import torch

    torch.set_num_threads(ctx.threads)
    from neurips26.papers.mental_imagery import data, experiments

    seed = ctx.require_seed()
    seed_everything(seed)
    parts = data.load_puzzles(ctx.inputs[0])
    if not Path(ctx.inputs[1]).is_file():
        raise UserError(f"{ctx.inputs[1]} is missing; run the mental_imagery_puzzles rule")
    import numpy as np

    from neurips26.papers.mental_imagery.pretrain import from_arrays

    with np.load(ctx.inputs[1], allow_pickle=False) as stored:
        pretrained = from_arrays(stored)
    frame, decoded = experiments.run(ctx.cfg, seed, parts, pretrained)
    write_csv(ctx.outputs[1], decoded)
    write_csv(ctx.outputs[0], frame)


def table_decoded(ctx: StageContext) -> None:
    if not ctx.inputs:
        raise UserError("table_decoded needs --input with the per-seed decoded CSVs")
    write_csv(ctx.output, tables.table_decoded(read_csvs(ctx.inputs)))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "puzzles": puzzles,
    "run": run,
    "table_solve": table_stage(tables.table_solve),
    "table_solve_seeds": table_stage(tables.table_solve_seeds),
    "table_probe": table_stage(tables.table_probe),
    "table_probe_seeds": table_stage(tables.table_probe_seeds),
    "table_probe_mid_seeds": table_stage(tables.table_probe_mid_seeds),
    "table_decoded": table_decoded,
    "figure_solve_rate_by_task": figure_stage(figures.solve_rate_by_task),
    "figure_probe_acc_vs_step": figure_stage(figures.probe_acc_vs_step),
    "figure_decoded_states": figure_stage(figures.decoded_states),
    "claims": claims_stage(deferred(paper_claims, "build"), ("solve", "solve_seeds", "probe", "probe_seeds",
                                                                   "probe_mid_seeds")),
}

"""The stages the Snakemake rules call (`python -m neurips26 dodge_it <stage> ...`). Policies are stored as .npz of their
parameters (read back with allow_pickle=False), so the same seed gives byte-identical files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.artifacts import write_csv, write_npz
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    npz_figure_stage,
    require_embedded,
    table_stage,
)

REAL = "SafeLIBERO / LIBERO assets and a VLA checkpoint (OpenVLA-OFT)"


def _save_policy(path: Path, state: dict) -> None:
    write_npz(path, {k: v.detach().cpu().numpy() for k, v in state.items()})


def _load_policy(path: Path) -> dict:
    import torch

    if path.suffix != ".npz" or not path.is_file():
        raise UserError(f"dodge_it: expected a policy .npz written by run_bc / run_rl_*, got {path}")
    with np.load(path, allow_pickle=False) as arrays:
        return {k: torch.as_tensor(arrays[k]) for k in arrays.files}


def _start(ctx: StageContext, outputs: str) -> int:
    from neurips26.common.pipeline.seeding import seed_everything

    require_embedded(ctx, REAL)
    if len(ctx.outputs) != 2:
        raise UserError(f"this stage writes two files: --output {outputs}")
    seed = ctx.require_seed()
    seed_everything(seed)
    return seed


def run_bc(ctx: StageContext) -> None:
    """--seed N --output bc.npz bc_log.csv"""
    from neurips26.papers.dodge_it import experiments

    seed = _start(ctx, "POLICY.npz LOG.csv")
    state, log = experiments.train_bc(ctx.cfg, seed)
    log.insert(0, "seed", seed)
    write_csv(ctx.outputs[1], log)
    _save_policy(ctx.outputs[0], state)


def run_rl(kind: str) -> Callable[[StageContext], None]:
    """--seed N --input bc.npz --output policy.npz curve.csv"""

    def stage(ctx: StageContext) -> None:
        from neurips26.papers.dodge_it import experiments

        seed = _start(ctx, "POLICY.npz CURVE.csv")
        if len(ctx.inputs) != 1:
            raise UserError("run_rl needs --input BC_POLICY.npz")
        state, curve = experiments.train_rl(ctx.cfg, seed, _load_policy(ctx.inputs[0]), kind)
        curve.insert(0, "reward_kind", kind)
        curve.insert(0, "seed", seed)
        write_csv(ctx.outputs[1], curve)
        _save_policy(ctx.outputs[0], state)

    return stage


def run_eval(ctx: StageContext) -> None:
    """--seed N --input bc.npz success_rl.npz dodge_rl.npz contact_rl.npz --output episodes.csv frames.npz"""
    from neurips26.papers.dodge_it import experiments

    seed = _start(ctx, "EPISODES.csv FRAMES.npz")
    names = ("bc", *experiments.RL_KINDS.values())
    if len(ctx.inputs) != len(names):
        raise UserError(f"run_eval needs --input {' '.join(n.upper() + '.npz' for n in names)} (in this order)")
    states = dict(zip(names, map(_load_policy, ctx.inputs)))
    episodes, frames = experiments.evaluate(ctx.cfg, seed, states)
    write_npz(ctx.outputs[1], frames)
    write_csv(ctx.outputs[0], episodes)


def _stages() -> dict[str, Callable[[StageContext], None]]:
    from neurips26.papers.dodge_it import convergence, figures, paper_claims, tables

    return {
        "run_bc": run_bc, "run_rl_success": run_rl("success"), "run_rl_dodge": run_rl("dodge"),
        "run_rl_contact": run_rl("contact"), "run_eval": run_eval,
        "table_safelibero_proxy": table_stage(tables.safelibero_proxy),
        "table_trace_vs_contacts": table_stage(tables.trace_vs_contacts),
        "table_per_seed": table_stage(tables.per_seed),
        "table_rl_curves": table_stage(tables.rl_curves),
        "table_convergence": table_stage(convergence.table),
        "figure_sr_car_scatter": figure_stage(figures.sr_car_scatter),
        "figure_rl_curves": figure_stage(figures.rl_curves),
        "figure_rollout_frames": npz_figure_stage(figures.rollout_frames),
        "claims": claims_stage(paper_claims.build, ("safelibero_proxy", "trace_vs_contacts", "per_seed", "convergence"),
                               with_config=False),
    }


STAGES: dict[str, Callable[[StageContext], None]] = _stages()

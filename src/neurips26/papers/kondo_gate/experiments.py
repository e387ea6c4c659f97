"""The run stages' work: one testbed x one seed, every method and keep rate of its config inside (see README).

Each returns (rows, wallclock): rows are deterministic (same seed -> identical CSV); wall-clock seconds are not, so they
go to a separate file that no claim reads.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from neurips26.common.models.device import resolve_device
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.kondo_gate import bandit
from neurips26.papers.kondo_gate.data import load_mnist
from neurips26.papers.kondo_gate.tasks import MnistTask, ReversalTask
from neurips26.papers.kondo_gate.training import matched_random, specs, train


def run_bandit(cfg, seed: int, data_dir: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    from omegaconf import OmegaConf

    alpha = float(cfg.gate.additive_alpha)
    main = bandit.analyse(cfg.bandit, alpha, seed)
    extra_cfg = OmegaConf.merge(OmegaConf.masked_copy(cfg.bandit, [k for k in cfg.bandit if k != "gaussian_extra"]),
                                cfg.bandit.gaussian_extra)
    extra = bandit.analyse(extra_cfg, alpha, seed + 1_000_000, setting="gaussian_extra")
    rows = pd.DataFrame(main + extra)
    rows.insert(0, "seed", seed)
    rows.insert(0, "task", "bandit")
    return rows, pd.DataFrame(columns=["task", "seed", "method", "keep_rate", "price", "wall_s"])


def _sweep(task, task_name: str, block, cfg, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    records = []
    for spec in tqdm(specs(block.methods), desc=f"kondo_gate {task_name} seed {seed}", file=sys.stderr):
        run = train(task, spec, cfg, block, seed)
        records.extend(run)
        if spec.method == "kondo":  # the frontier's baseline: random gating at the keep rate this price realised
            records.extend(train(task, matched_random(spec, run, task.batch_size), cfg, block, seed))
    frame = pd.DataFrame(records)
    frame.insert(0, "seed", seed)
    frame.insert(0, "task", task_name)
    last = frame.groupby(["method", "keep_rate", "price"], dropna=False, sort=False).tail(1)
    wall = last[["task", "seed", "method", "keep_rate", "price", "wall_s"]].reset_index(drop=True)
    return frame.drop(columns="wall_s"), wall


def run_mnist(cfg, seed: int, data_dir: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    if data_dir is None:
        raise UserError("run_mnist needs --input data/raw/<dataset>/provenance.json")
    images, labels = load_mnist(data_dir, real=cfg.data == "real")
    task = MnistTask(images, labels, cfg.mnist, seed, resolve_device(cfg.device))
    return _sweep(task, "mnist", cfg.mnist, cfg, seed)


def run_reversal(cfg, seed: int, data_dir: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    length = cfg.get("length")
    if length is None or int(length) not in [int(n) for n in cfg.reversal.lengths]:
        raise UserError(f"run_reversal needs the override length=N with N in reversal.lengths "
                        f"{list(cfg.reversal.lengths)}; got {length!r}")
    task = ReversalTask(int(length), cfg.reversal, seed, resolve_device(cfg.device))
    return _sweep(task, f"reversal_L{int(length)}", cfg.reversal, cfg, seed)

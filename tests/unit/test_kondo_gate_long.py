"""The long scale (issue #67 item 3): token reversal as the official code runs it (10 prompts x 10 answers, grouped
baseline, lr 3e-4, lengths 8 and 12) composes as its own design, and its reversal runs end to end in a tiny smoke form
(long's settings with tiny sizes) through the table that claim 3 reads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from omegaconf import OmegaConf

from neurips26.common.pipeline.config import compose
from neurips26.papers.kondo_gate.tables import table_main_seeds
from neurips26.papers.kondo_gate.tasks import ReversalTask
from neurips26.papers.kondo_gate.training import Spec, train


def test_long_composes_the_official_reversal():
    cfg, default = compose("kondo_gate", ["scale=long"]), compose("kondo_gate", [])
    assert cfg.scale_name == "long" and cfg.long_design is True
    r = cfg.reversal
    assert list(r.lengths) == [8, 12] and r.vocab == 4 and r.d_model == 64
    assert (r.batch, r.samples_per_prompt, r.baseline, r.lr) == (100, 10, "prompt", 3e-4)
    assert default.reversal.baseline == "batch" and cfg.mnist == default.mnist and cfg.bandit == default.bandit


def test_long_reversal_runs_in_a_tiny_smoke_form():
    long = compose("kondo_gate", ["scale=long"])
    block = OmegaConf.merge(
        long.reversal, {"batch": 20, "steps": 3, "eval_every": 1, "eval_size": 8, "d_model": 16, "ff": 16, "heads": 2}
    )
    torch.set_num_threads(1)
    task = ReversalTask(12, block, 0)
    rows = []
    for spec in (Spec("dg", 1.0), Spec("delight", 0.1), Spec("random", 0.1)):
        run = pd.DataFrame(train(task, spec, long, block, 0))
        assert run.step.tolist() == [0, 1, 2, 3] and np.isfinite(run.score).all()
        rows.append(run.assign(task="reversal_L12", seed=0))
    runs = pd.concat(rows)
    assert runs[runs.method == "dg"].backward_passes.iloc[-1] == 3 * 20
    assert runs[runs.method == "delight"].backward_passes.iloc[-1] == 3 * 2  # ceil(0.1 * 20) rows a step
    table = table_main_seeds(runs.drop(columns="wall_s"))
    assert "passes_to_target" in table and len(table) == 3

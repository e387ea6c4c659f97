"""Pilot (issue #67): autoregressive reversal, DG and gates on a pilot seed outside every configured set.
Usage: python -m neurips26.papers.kondo_gate.pilots.reversal_pilot SEED LENGTH STEPS [KEY=VALUE ...] METHOD:RATE ...
(KEY=VALUE: Hydra overrides, e.g. scale=long or reversal.lr=3e-4)"""

import sys
import time

from hydra import compose, initialize_config_dir

from neurips26.common.pipeline.registry import repo_root
from neurips26.common.pipeline.seeding import set_threads
from neurips26.papers.kondo_gate.tasks import ReversalTask
from neurips26.papers.kondo_gate.training import Spec, train

set_threads(1)
seed, length, steps = (int(v) for v in sys.argv[1:4])
overrides = [a for a in sys.argv[4:] if "=" in a]
with initialize_config_dir(str(repo_root() / "config" / "kondo_gate"), version_base=None):
    cfg = compose("config", overrides=[*overrides, f"reversal.steps={steps}",
                                       f"reversal.eval_every={max(1, steps // 10)}"])
task = ReversalTask(length, cfg.reversal, seed)
for item in (a for a in sys.argv[4:] if "=" not in a):
    method, rate = item.split(":")
    start = time.time()
    spec = Spec(method, None, float(rate)) if method in ("kondo", "price_delight") else Spec(method, float(rate))
    records = train(task, spec, cfg, cfg.reversal, seed)
    curve = " ".join(f"{r['score']:.3f}" for r in records)
    print(f"L{length} {item}: {curve}  ({time.time() - start:.1f} s)", flush=True)

"""Pilot for the decoder's training rule (issue #60 item 1), on a pilot seed outside every configured seed set:

    python src/neurips26/papers/rldp/pilots/training_rule.py 900 /tmp/rldp_pilot

One training run with the stricter rule (model.plateau: 0.01) records every validation check; the think-at-target rule
stops at the first check where the think route is >= target at every level, so the same history shows where each rule
stops. The frozen criterion (JOURNAL.md, written before this ran) reads only this history -- the validation accuracy of
the two routes -- and never RLDP, the probe, or any router: it prints the rule it chooses.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from neurips26.common.pipeline.config import compose
from neurips26.papers.rldp import experiments

GAP = 0.01  # the no-think route must stay below the think route by more than the routing tolerance (1 point)


def choose(history: pd.DataFrame, cap: int, target: float) -> dict:
    """The criterion: 'plateau' (both routes trained to convergence) if it stops within the safety cap and the trained
    model still leaves a gap between the routes (something to route); else 'think_at_target'."""
    at_target = history.loc[history.think_min_acc >= target, "step"]
    stopped = history.loc[history.converged.astype(bool), "step"]
    plateau_step = int(stopped.iloc[0]) if len(stopped) else None
    last = history.loc[history.step == plateau_step].iloc[0] if plateau_step else history.iloc[-1]
    think_all = float(last[[c for c in history if c.startswith("think_acc_")]].mean())
    gap = think_all - float(last.nothink_mean_acc)
    ok = plateau_step is not None and gap > GAP
    return {
        "think_at_target_step": int(at_target.iloc[0]) if len(at_target) else None,
        "plateau_step": plateau_step,
        "cap": cap,
        "gap_at_plateau": gap,
        "chosen": "plateau" if ok else "think_at_target",
    }


def main(argv: list[str]) -> None:
    seed, out = int(argv[0]), Path(argv[1])
    cfg = compose("rldp", ["model.plateau=0.01"])
    out.mkdir(parents=True, exist_ok=True)
    _, history = experiments.train(cfg, seed)
    history.to_csv(out / f"seed{seed}_history.csv", index=False)
    report = choose(history, int(cfg.model.max_steps), float(cfg.model.target))
    (out / f"seed{seed}_choice.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])

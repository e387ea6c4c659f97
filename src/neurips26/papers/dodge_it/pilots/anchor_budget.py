"""Pilot for issue #62 items 2 and 5, on seeds outside every configured set (900+). Run by hand, never by the pipeline:

  python src/neurips26/papers/dodge_it/pilots/anchor_budget.py anchor --seeds 900 901 --betas 0 0.1 1 --out A.csv
  python src/neurips26/papers/dodge_it/pilots/anchor_budget.py budget --seeds 900 --beta B --iterations 80 --out C.csv
  python src/neurips26/papers/dodge_it/pilots/anchor_budget.py rule --iterations 100 --curves C900.csv C901.csv

anchor: BC, then success-only GRPO at the default budget with each KL coefficient to the BC policy; BC and the RL
policy on held-out pilot layouts (the `pilot` stream). Rule (fixed before it ran): the coefficient with the highest
mean held-out SR of success-only RL over the pilot seeds; within 1 point, the smaller coefficient.
budget: GRPO with every reward (success, dodge, contact) at the chosen coefficient for `--iterations`; the training
curves; the rule of `convergence.py` at each candidate budget (every 10 iterations from 20).
rule: the same report from saved curves (seeds run as separate processes, e.g. the long design's pilot).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd

from neurips26.common.pipeline.config import compose
from neurips26.papers.dodge_it import convergence, experiments, rollout
from neurips26.papers.dodge_it.env import sample_layouts
from neurips26.papers.dodge_it.policy import Policy


def _held_out(cfg, seed: int, state: dict, layouts_per_level: int) -> dict:
    policy = Policy(hidden=int(cfg.policy.hidden), std=float(cfg.policy.std))
    policy.load_state_dict(state)
    with experiments._Scene() as scene:
        res = rollout.run(scene.model, scene.cam(cfg), sample_layouts(seed, "pilot", 2 * layouts_per_level),
                          rollout.policy_controller(policy), cfg, trace_outcome=False)
    d = pd.DataFrame(res.records)
    return {"sr": 100 * d["success"].mean(), "car": 100 * (1 - d["collision_ref"].mean())}


def anchor(args) -> None:
    rows = []
    for seed in args.seeds:
        cfg = compose("dodge_it", args.overrides)
        bc, _ = experiments.train_bc(cfg, seed)
        base = _held_out(cfg, seed, bc, args.layouts)
        for beta in args.betas:
            cfg = compose("dodge_it", [*args.overrides, f"rl.kl_coef={beta}"])
            t0 = time.time()
            state, curve = experiments.train_rl(cfg, seed, bc, "success")
            rl = _held_out(cfg, seed, state, args.layouts)
            rows.append({"seed": seed, "kl_coef": beta, "sr_bc": base["sr"], "car_bc": base["car"], "sr_rl": rl["sr"],
                         "car_rl": rl["car"], "train_success_last10": 100 * curve["success"].iloc[-10:].mean(),
                         "seconds": time.time() - t0})
            print(rows[-1], file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(args.out, index=False)
    mean = table.groupby("kl_coef")[["sr_bc", "sr_rl", "car_rl"]].mean()
    best = mean["sr_rl"].max()
    chosen = min(b for b, sr in mean["sr_rl"].items() if sr >= best - 1.0)
    print(mean.to_string(), f"\nchosen kl_coef: {chosen}", sep="\n")


def budget(args) -> None:
    curves = []
    for seed in args.seeds:
        cfg = compose("dodge_it", [*args.overrides, f"rl.kl_coef={args.beta}", f"rl.iterations={args.iterations}"])
        bc, _ = experiments.train_bc(cfg, seed)
        for kind in args.kinds or experiments.RL_KINDS:
            t0 = time.time()
            _, curve = experiments.train_rl(cfg, seed, bc, kind)
            curve.insert(0, "reward_kind", kind)
            curve.insert(0, "seed", seed)
            curves.append(curve)
            pd.concat(curves).to_csv(args.out, index=False)  # after every run: a stopped pilot keeps what it ran
            print(f"seed {seed} {kind}: {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    _report(pd.concat(curves), args.iterations)


def _report(curves: pd.DataFrame, iterations: int) -> None:
    """The rule at every candidate budget (every 10 iterations from 20), and the smallest candidate from which every run
    meets it at every later candidate up to the pilot's end (the long design's rule, JOURNAL.md)."""
    runs = dict(iter(curves.groupby(["seed", "reward_kind"])))
    met = {}
    for n in range(2 * convergence.WINDOW, iterations + 1, 10):
        met[n] = all(convergence.converged(d, n) for d in runs.values())
        drifts = {f"{s}/{k}": convergence.drift(d, n) for (s, k), d in runs.items()}
        print(n, "converged" if met[n] else "not converged",
              {r: {k: round(v, 1) for k, v in x.items()} for r, x in drifts.items()})
    stable = [n for n in met if all(met[m] for m in met if m >= n)]
    print("met from N on at every later candidate:", min(stable) if stable else "none")


def rule(args) -> None:
    """The rule on saved pilot curves (one CSV per seed when the seeds ran as parallel processes)."""
    curves = pd.concat([pd.read_csv(path) for path in args.curves])
    _report(curves, args.iterations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("phase", choices=["anchor", "budget", "rule"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[])
    parser.add_argument("--curves", nargs="*", default=[], help="rule: saved pilot curves")
    parser.add_argument("--kinds", nargs="*", choices=list(experiments.RL_KINDS), help="budget: rewards (all if none)")
    parser.add_argument("--betas", type=float, nargs="+", default=[0.0])
    parser.add_argument("--beta", type=float, default=0.0)
    parser.add_argument("--iterations", type=int, default=80)
    parser.add_argument("--layouts", type=int, default=30, help="held-out pilot layouts per level")
    parser.add_argument("--overrides", nargs="*", default=[], help="Hydra overrides (e.g. scale=tiny for a smoke run)")
    parser.add_argument("--out")
    args = parser.parse_args()
    if set(args.seeds) & {0, 1, 2}:
        raise SystemExit("pilot seeds must lie outside the configured seeds 0-2")
    np.seterr(all="ignore")
    {"anchor": anchor, "budget": budget, "rule": rule}[args.phase](args)


if __name__ == "__main__":
    main()

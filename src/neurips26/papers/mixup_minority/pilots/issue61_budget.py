"""Pilot for the convergence rule (issue #61 item 4), on pilot seeds outside every configured seed set (900+).

Every long-tailed method at the full ratio, trained with budgets S and 2S (a full cosine schedule each): the rule
(JOURNAL.md) calls a budget converged when every method's balanced dev accuracy moves by at most `acc_tol` and its
final training loss (mean over the last tenth of the steps) falls by at most `loss_tol` when the budget doubles. The
pilot seed's balanced test set is the dev set (no configured result ever reads it).

    python src/neurips26/papers/mixup_minority/pilots/issue61_budget.py --dataset digits --steps 1000 2000 \
        --seeds 900 --data /work/main/data/raw --out results/mixup_minority/pilots/budget_digits.csv
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import torch
from omegaconf import OmegaConf

from neurips26.papers.mixup_minority import data, experiments

CONFIG = Path(__file__).resolve().parents[5] / "config" / "mixup_minority" / "config.yaml"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--steps", type=int, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[900])
    ap.add_argument("--ratio", type=float, default=100.0)
    ap.add_argument("--methods", nargs="*")
    ap.add_argument("--data", default="data/raw")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)  # as the pipeline's jobs (threads: 1): two threads on two shared cores only contend
    cfg = OmegaConf.load(CONFIG)
    cfg.pop("defaults", None)
    if args.methods:
        cfg.lt.methods = args.methods
    frames = []
    for seed in args.seeds:
        task = data.load_task(args.dataset, Path(args.data) / args.dataset, cfg.lt, seed)
        for steps in args.steps:
            cfg.train.steps = steps
            frames.append(experiments.run_lt(cfg, task, args.dataset, args.ratio, seed, "cpu"))
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            pd.concat(frames).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()

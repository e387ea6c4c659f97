"""The pilot that fixed extractor.shifted_fraction (config `pilot`), on a seed outside the configured ones:

    python -m neurips26.papers.hyperidac.pilot /usr/share/datasets/fashion-mnist [--methods m1,m2] [step ...]

Each step is a comma-separated list of config overrides (default: the config's `pilot.ladder`).
For each step in order it builds the default-scale feature cache, runs the balanced and severe regimes on the pilot
seed, prints the methods' metrics, the worst cells, and whether the learnability rule holds, and stops at the first
step that passes. Not part of the pipeline (it fixes the protocol, never a claim).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd


def learnable(metrics: pd.DataFrame, cfg) -> bool:
    """The rule of config `pilot`: the labelled reference's worst cell in the balanced and severe regimes and the
    static head's balanced worst cell reach their minimums."""
    regimes = list(cfg.regimes)
    worst = metrics.set_index(["method", "regime"]).worst_cell
    return bool(min(worst["boda_labelled", regimes[0]], worst["boda_labelled", regimes[-1]])
                >= cfg.pilot.min_worst_reference and worst["static", regimes[0]] >= cfg.pilot.min_worst_static_balanced)


def main(argv: list[str]) -> None:
    import argparse

    import torch

    from neurips26.common.pipeline.config import compose
    from neurips26.papers.hyperidac import data, experiments, tables

    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("steps", nargs="*")
    parser.add_argument("--methods", type=lambda v: v.split(","), default=None)
    args = parser.parse_intermixed_args(argv)
    torch.set_num_threads(1)
    folder = args.folder
    cfg = compose("hyperidac", [])
    seed = int(cfg.pilot.seed)
    for step in args.steps or list(cfg.pilot.ladder):
        overrides = step.split(",") + ([f"methods=[{','.join(args.methods)}]"] if args.methods else [])
        cfg = compose("hyperidac", overrides)
        start = time.time()
        feats = data.build_features(folder, cfg, seed)
        print(f"step {step}: features {time.time() - start:.1f} s", flush=True)
        runs = []
        for regime in (list(cfg.regimes)[0], list(cfg.regimes)[-1]):
            start = time.time()
            runs.append(experiments.run_regime(feats, cfg, regime, seed))
            print(f"  {regime}: {time.time() - start:.1f} s", flush=True)
        runs = pd.concat(runs)
        metrics = tables.per_seed(runs, cfg)
        print(metrics.drop(columns=["gamma", "seed"]).round(3).to_string(index=False), flush=True)
        worst = runs.sort_values("accuracy").groupby(["method", "regime"], sort=False).head(3)
        print(worst[["method", "regime", "cls", "domain", "n_train", "n_labelled", "accuracy"]]
              .sort_values(["method", "regime"]).to_string(index=False), flush=True)
        verdict = learnable(metrics, cfg)
        print(f"step {step}: learnable = {verdict}", flush=True)
        if verdict:
            break


if __name__ == "__main__":
    main(sys.argv[1:])

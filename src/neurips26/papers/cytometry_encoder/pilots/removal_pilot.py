"""Issue 70 item 5's pilot: the test-time marker-removal curves (random and signal-first order; frozen encoder and
quantiles; refit and fixed probe) on pilot seeds' worlds, to see whether the removal negative control registers.

    python src/neurips26/papers/cytometry_encoder/pilots/removal_pilot.py RESULTS_DIR --seeds 900 901 --out OUT.csv

RESULTS_DIR is a run whose config lists the pilot seeds (runs/anndata/seed<N>, runs/marker_vectors.npz,
runs/pretrain/base.pt). Prints, per seed and curve, the largest one-step drop of the signal-task median AUROC (the
claim's statistic) and the median AUROC at 0 and at the most markers removed. The rule is in JOURNAL.md (issue 70).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd
import torch
from omegaconf import OmegaConf

from neurips26.papers.cytometry_encoder import tables
from neurips26.papers.cytometry_encoder.experiments import load, run_removal
from neurips26.papers.cytometry_encoder.pilot_cli import RESERVED


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("results", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if RESERVED & set(args.seeds):
        raise SystemExit(f"pilot seeds must lie outside {sorted(RESERVED)}")
    cfg = OmegaConf.merge(OmegaConf.load(Path("config/cytometry_encoder/config.yaml")),
                          OmegaConf.load(Path("config/cytometry_encoder/scale/default.yaml")))
    states = torch.load(args.results / "runs/pretrain/base.pt", weights_only=True)
    torch.set_num_threads(1)
    frames = []
    for seed in args.seeds:
        start = time.time()
        samples, task_rows = load(cfg, args.results / f"runs/anndata/seed{seed}", args.results / "runs/marker_vectors.npz")
        rows, _, _ = run_removal(cfg, seed, samples, task_rows, states[seed], with_embeddings=False)
        frames.append(rows)
        print(f"seed {seed}: {time.time() - start:.0f} s", flush=True)
    runs = pd.concat(frames, ignore_index=True)
    runs.to_csv(args.out, index=False)
    per_seed = tables.table_removal_seeds(runs)
    summary = per_seed.groupby([*tables.REMOVAL_CURVE, "seed"]).agg(
        max_step_drop=("drop_from_previous", "max"), auroc_full=("auroc", "first"), auroc_last=("auroc", "last"))
    print(summary.round(3).to_string())


if __name__ == "__main__":
    main()

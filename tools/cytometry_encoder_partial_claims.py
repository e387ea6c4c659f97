"""The claims that a partial run supports, computed by the pipeline's own tables and paper_claims.build.

    python tools/cytometry_encoder_partial_claims.py RESULTS_DIR

For a seed-set re-check that runs only the base encoder, the baselines and the removal job (the negative control's
null lives there), e.g.
    snakemake --cores 2 results/cytometry_encoder/runs/control_null.csv results/cytometry_encoder/runs/baselines.csv \
        --config 'seeds=[10,11,12]'
Prints negative_control, graceful_marker_removal and pretraining_helps_cross_study; matches_specialists (needs the
specialists) and scaling_saturates (needs every sweep point) are reported as not run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from neurips26.papers.cytometry_encoder import paper_claims, tables

SUPPORTED = {"negative_control", "graceful_marker_removal", "pretraining_helps_cross_study"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("results", type=Path)
    args = parser.parse_args()
    runs = args.results / "runs"
    cfg = OmegaConf.load(args.results / "config.yaml")
    task_runs = pd.concat([pd.read_csv(runs / "pretrain/base.csv"), pd.read_csv(runs / "baselines.csv")],
                          ignore_index=True)
    tasks, tasks_seeds = tables.table_tasks(task_runs), tables.table_tasks_seeds(task_runs)
    removal = tables.table_removal(pd.read_csv(runs / "removal.csv"))
    null = tables.table_control_null(pd.read_csv(runs / "control_null.csv"))
    losses = tables.table_pretrain_loss(pd.read_csv(runs / "pretrain/base_loss.csv"))
    scaling = pd.DataFrame(columns=["sweep", "task", "x", "auroc"])
    scaling_seeds = pd.DataFrame(columns=["sweep", "x", "task", "seed", "auroc"])
    claims, _ = paper_claims.build(tasks, scaling, removal, null, losses, tasks_seeds, scaling_seeds, cfg)
    print(f"seeds {list(cfg.seeds)}")
    for claim in claims:
        if claim.id not in SUPPORTED:
            print(f"{claim.id}: not run (partial run)")
            continue
        entry = claim.to_json()
        measured = ", ".join(f"{k} {v:.3f}" if v is not None else f"{k} nan" for k, v in entry["measured"].items())
        pc = entry.get("positive_control")
        extra = (f"; positive control {'holds' if pc['holds'] else 'fails'} ({pc['measured']['control_auroc']:.3f})"
                 if pc else "")
        print(f"{claim.id}: {'holds' if entry['holds'] else 'fails'} | {measured}{extra}")

if __name__ == "__main__":
    main()

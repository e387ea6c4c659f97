"""The pilot (run once, by hand, on a seed outside every configured seed set, before the final runs; README 'Pilot'):

    python -m neurips26.papers.cytometry_encoder.pilot --seed 99 --workdir /tmp/cyto_pilot [--steps 300]

It builds the default-scale universe, ingests it, embeds the marker names, then pretrains the base encoder at the step
budget S and at 2 S on the pilot seed and probes it frozen (and the random-init encoder) on every task. Two checks,
read before any configured seed is run: (1) the budget rule -- doubling the budget lowers the end-of-pretraining loss
by less than `pretrain.convergence.doubling_tolerance` (relative); (2) the positive control -- on the cross-study task
the pretrained frozen encoder beats the random-init one by >= claims.positive_control_gain.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=None)
    args = parser.parse_args()
    from omegaconf import OmegaConf

    from neurips26.common.config import compose
    from neurips26.common.seeding import seed_everything, set_threads
    from neurips26.papers.cytometry_encoder import experiments, ingest, marker_vectors, pretrain
    from neurips26.papers.cytometry_encoder.universe import generate

    set_threads(1)
    cfg = compose("cytometry_encoder", ["scale=default", f"seeds=[{args.seed}]"])
    if cfg.seeds != [args.seed] or args.seed in range(6):
        raise SystemExit("the pilot seed must lie outside the configured seeds 0-5")
    work = args.workdir
    if not (work / "anndata").exists():
        generate(cfg.universe, cfg.tasks, work / "universe")
        ingest.ingest(work / "universe" / "manifest.yaml", work / "universe" / "fcs", work / "anndata",
                      work / "studies.csv", cfg.fcs, real=False)
        arrays = marker_vectors.build(marker_vectors.marker_names([work / "anndata"]), [str(cfg.model.names)])
        with open(work / "vectors.npz", "wb") as handle:
            np.savez(handle, **arrays)
    samples, task_rows = experiments.load(cfg, work / "anndata", work / "vectors.npz")
    steps = int(args.steps or cfg.pretrain.steps)
    report = {"seed": args.seed, "steps": steps}
    seed_everything(args.seed)
    report["random_init"] = {r["task"]: r["auroc"] for r in experiments.evaluate_frozen(
        cfg, pretrain.build_model(cfg), task_rows, args.seed, "random_init")}
    for budget in (steps, 2 * steps):
        run_cfg = OmegaConf.merge(cfg, {"pretrain": {"steps": budget}})
        seed_everything(args.seed)
        rows, _, losses = experiments.run_pretrain(run_cfg, args.seed, samples, task_rows, "base")
        report[f"steps_{budget}"] = {"end_loss": float(rows.recon_loss.iloc[0]),
                                     "end_reference": float(losses.reference.tail(max(1, budget // 10)).mean()),
                                     "auroc": dict(zip(rows.task, rows.auroc.round(4)))}
        print(json.dumps(report), flush=True)
    s, d = report[f"steps_{steps}"], report[f"steps_{2 * steps}"]
    report["doubling_loss_improvement"] = (s["end_loss"] - d["end_loss"]) / s["end_loss"]
    report["positive_control_gain"] = s["auroc"]["cross_study"] - report["random_init"]["cross_study"]
    print(json.dumps(report, indent=1))
    (work / "pilot.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

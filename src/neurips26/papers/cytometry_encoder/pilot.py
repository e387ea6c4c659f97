"""The pilot (run once, by hand, on a seed outside every configured seed set, before the final runs; JOURNAL 'Pilot'):

    python -m neurips26.papers.cytometry_encoder.pilot --seed 99 --workdir /tmp/cyto_pilot --steps 150 300 600 \
        [--data results/cytometry_encoder/runs] [--set pretrain.batch=32 --set pretrain.cells=16 ...]

It uses the default-scale universe, ingest and marker vectors (from --data, a default run's `runs/` folder, else it
builds them in --workdir), then pretrains the base encoder at every step budget given (each a full cosine schedule) on
the pilot seed and probes it frozen (and the random-init encoder) on every task. Read before any configured seed is
run: (1) the budget rules -- doubling S -> 2 S lowers the end-of-pretraining loss by less than
`pretrain.convergence.doubling_tolerance` (relative; the first two pilots' rule), and the change of the frozen AUROC
averaged over the four signal tasks (third pilot's rule, JOURNAL); (2) the positive control -- on the cross-study task the
pretrained frozen encoder beats the random-init one by >= claims.positive_control_gain. --set key=value overrides the
config (the candidate settings compared in the pilot).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=None, help="a default run's runs/ folder (anndata/, vectors)")
    parser.add_argument("--world", type=int, default=0, help="with --data: the run seed whose world it reads")
    parser.add_argument("--steps", type=int, nargs="+", default=None, help="step budgets (doublings)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="a config override key=value")
    args = parser.parse_args()
    from omegaconf import OmegaConf

    from neurips26.common.models.allocator import keep_freed_memory
    from neurips26.common.pipeline.config import compose
    from neurips26.common.pipeline.seeding import seed_everything, set_threads
    from neurips26.papers.cytometry_encoder import experiments, ingest, marker_vectors, pretrain
    from neurips26.papers.cytometry_encoder.universe import generate

    set_threads(1)
    keep_freed_memory()
    cfg = compose("cytometry_encoder", ["scale=default", f"seeds=[{args.seed}]", *args.overrides])
    if cfg.seeds != [args.seed] or args.seed in range(6):
        raise SystemExit("the pilot seed must lie outside the configured seeds 0-5")
    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    if args.data is not None:
        anndata, vectors = args.data / "anndata" / f"seed{args.world}", args.data / "marker_vectors.npz"
    else:
        anndata, vectors = work / "anndata", work / "vectors.npz"
        if not anndata.exists():
            generate(cfg.universe, cfg.tasks, work / "universe", args.seed)  # the pilot seed's own world
            ingest.ingest(work / "universe" / "manifest.yaml", work / "universe" / "fcs", anndata,
                          work / "studies.csv", cfg.fcs, real=False, seed=args.seed)
            arrays = marker_vectors.build(marker_vectors.marker_names([anndata]), [str(cfg.model.names)])
            with open(vectors, "wb") as handle:
                np.savez(handle, **arrays)
    samples, task_rows = experiments.load(cfg, anndata, vectors)
    budgets = sorted(args.steps or [int(cfg.pretrain.steps), 2 * int(cfg.pretrain.steps)])
    report = {"seed": args.seed, "steps": budgets, "overrides": list(args.overrides),
              "pretrain": OmegaConf.to_container(cfg.pretrain)}
    seed_everything(args.seed)
    report["random_init"] = {r["task"]: r["auroc"] for r in experiments.evaluate_frozen(
        cfg, pretrain.build_model(cfg), task_rows, args.seed, "random_init")}
    for budget in budgets:
        run_cfg = OmegaConf.merge(cfg, {"pretrain": {"steps": budget}})
        seed_everything(args.seed)
        start = time.perf_counter()
        rows, _, losses = experiments.run_pretrain(run_cfg, args.seed, samples, task_rows, "base")
        report[f"steps_{budget}"] = {"end_loss": float(rows.recon_loss.iloc[0]),
                                     "end_reference": float(losses.reference.tail(max(1, budget // 10)).mean()),
                                     "auroc": dict(zip(rows.task, rows.auroc.round(4))),
                                     "seconds": round(time.perf_counter() - start, 1)}
        print(json.dumps(report), flush=True)
    tolerance = float(cfg.pretrain.convergence.doubling_tolerance)
    report["doubling"] = {}
    for s, d in zip(budgets, budgets[1:]):
        if d != 2 * s:
            continue
        a, b = report[f"steps_{s}"], report[f"steps_{d}"]
        improvement = (a["end_loss"] - b["end_loss"]) / a["end_loss"]
        signal = [str(t.name) for t in cfg.tasks if t.signal and t.taxonomy != "positive_control"]
        change = float(np.mean([b["auroc"][t] for t in signal]) - np.mean([a["auroc"][t] for t in signal]))
        report["doubling"][f"{s}->{d}"] = {"loss_improvement": improvement, "converged": improvement < tolerance,
                                           "signal_mean_auroc_change": change,
                                           "cross_study_auroc_change": b["auroc"]["cross_study"] - a["auroc"]["cross_study"]}
    report["positive_control_gain"] = {s: report[f"steps_{s}"]["auroc"]["cross_study"] - report["random_init"]["cross_study"]
                                       for s in budgets}
    print(json.dumps(report, indent=1))
    (work / "pilot.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

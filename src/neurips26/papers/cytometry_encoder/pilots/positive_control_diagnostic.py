"""Why does pretraining not help on the positive control? (JOURNAL: Open; issue 27) A diagnostic on pilot seeds only.

    python src/neurips26/papers/cytometry_encoder/pilots/positive_control_diagnostic.py RUNS_DIR --seed 99 \
        [--snapshots 0 100 300 900]
        [--out DIAG.json]

RUNS_DIR is a default run's `runs/` folder (anndata/, marker_vectors.npz; the universe is fixed, so any default run's
data are the same). The seed must lie outside every configured seed set. One base pretraining run at the configured
budget (a full cosine schedule) is probed frozen at the snapshot steps (step 0 is its initialisation, the random-init
encoder of that seed). Per snapshot and task: (1) the frozen CV AUROC, as the pipeline computes it; (2) how much of the
samples' TRUE population frequencies the embedding carries linearly: the cross-validated R^2 of a ridge regression
from the standardised embedding to each population's frequency, for the two populations the task's label moves
('up', 'down') and averaged over all 12; (3) how well the embedding tells the task's studies apart (mean one-vs-rest CV
AUROC; pretraining across panels should lower it on cross_study, where every study has its own panel). Beside them,
the true frequencies themselves as probe features (the ceiling of a frequency-based method) and the two moved
populations' log-ratio as a single feature.

The true frequencies come from the universe generator itself, re-run without writing files (its random draws are
unchanged, so every sample gets the populations its FCS file was written from; the ingest keeps all 300 cells).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", type=Path)
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--world", type=int, default=0, help="the run seed whose world (runs/anndata/seed<N>) it reads")
    parser.add_argument("--snapshots", type=int, nargs="+", default=[0, 100, 300, 900])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="a config override key=value")
    args = parser.parse_args()
    from neurips26.common.models.allocator import keep_freed_memory
    from neurips26.common.pipeline.config import compose
    from neurips26.common.pipeline.seeding import seed_everything, set_threads
    from neurips26.papers.cytometry_encoder import corpus, experiments, pretrain, probe
    from neurips26.papers.cytometry_encoder.diagnostics import describe, true_frequencies

    set_threads(1)
    keep_freed_memory()
    cfg = compose("cytometry_encoder", ["scale=default", f"seeds=[{args.seed}]", *args.overrides])
    if args.seed in range(6) or args.seed in (10, 11, 12):
        raise SystemExit("the diagnostic seed must lie outside the configured seed sets (0-5, 10-12)")
    samples, task_rows = experiments.load(cfg, args.runs / "anndata" / f"seed{args.world}",
                                          args.runs / "marker_vectors.npz")
    freqs, info = true_frequencies(cfg, args.world)
    report: dict = {"seed": args.seed, "steps": int(cfg.pretrain.steps), "snapshots": {}, "oracle": {}}
    for task, rows in task_rows.items():
        f = np.stack([freqs[s.id] for s in rows])
        t = info["tasks"][task]
        y = np.array([s.label for s in rows])
        ratio = np.log(f[:, [t["up"]]] + 1 / 300) - np.log(f[:, [t["down"]]] + 1 / 300)
        report["oracle"][task] = {
            "true_frequencies_auroc": probe.cv_auroc(f, y, int(cfg.probe.folds), float(cfg.probe.l2_c), args.seed),
            "moved_log_ratio_auroc": probe.cv_auroc(ratio, y, int(cfg.probe.folds), float(cfg.probe.l2_c), args.seed)}

    def on_step(step: int, model) -> None:
        if step not in args.snapshots:
            return
        out = {}
        for task, rows in task_rows.items():
            z = pretrain.embed(model, rows, int(cfg.probe.cells), args.seed)
            t = info["tasks"][task]
            out[task] = describe(cfg, z, rows, np.stack([freqs[s.id] for s in rows]), (t["up"], t["down"]), args.seed)
        report["snapshots"][step] = out
        print(step, json.dumps({k: round(v["auroc"], 3) for k, v in out.items()}), flush=True)

    seed_everything(args.seed)
    model = pretrain.build_model(cfg)
    loss, _ = pretrain.pretrain(model, corpus.corpus(samples), cfg, args.seed, on_step=on_step)
    report["end_loss"] = loss
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

"""Issue 70 item 3's diagnosis: is it the pooling or the probe that keeps the pretrained encoder below random-init?

    python src/neurips26/papers/cytometry_encoder/pilots/pooling_probe_ablation.py --seed 900 --workdir /tmp/cyto_abl

On the pilot seed's own world: the default base encoder pretrained (900 steps) and the same encoder at random init;
every signal task embedded once by each; the probe's CV AUROC on three poolings of the cell embeddings (mean and sd,
the default; mean only; sd only) at four probe strengths (C = 0.01, 0.1, 1, 10). Prints the signal-task mean AUROC per
(encoder, pooling, C) and pretrained - random-init. Diagnosis only: nothing here changes the configured design (the
rule that reads it is in JOURNAL.md, issue 70).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    args = parser.parse_args()
    from neurips26.common.pipeline.config import compose
    from neurips26.common.pipeline.seeding import seed_everything, set_threads
    from neurips26.papers.cytometry_encoder import corpus, experiments, ingest, marker_vectors, pretrain, probe
    from neurips26.papers.cytometry_encoder.pilot_cli import RESERVED
    from neurips26.papers.cytometry_encoder.universe import generate

    if args.seed in RESERVED:
        raise SystemExit(f"the pilot seed must lie outside {sorted(RESERVED)}")
    set_threads(1)
    cfg = compose("cytometry_encoder", ["scale=default", f"seeds=[{args.seed}]"])
    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    anndata, vectors = work / "anndata", work / "vectors.npz"
    if not anndata.exists():
        generate(cfg.universe, cfg.tasks, work / "universe", args.seed)  # the pilot seed's own world
        ingest.ingest(work / "universe" / "manifest.yaml", work / "universe" / "fcs", anndata, work / "studies.csv",
                      cfg.fcs, real=False, seed=args.seed)
        with open(vectors, "wb") as handle:
            np.savez(handle, **marker_vectors.build(marker_vectors.marker_names([anndata]), [str(cfg.model.names)]))
    samples, task_rows = experiments.load(cfg, anndata, vectors)
    signal = {t: rows for t, rows in task_rows.items()
              if corpus.taxonomy(rows) not in ("negative_control", "positive_control")}
    seed_everything(args.seed)
    encoders = {"random_init": pretrain.build_model(cfg)}
    seed_everything(args.seed)
    trained = pretrain.build_model(cfg)
    pretrain.pretrain(trained, corpus.corpus(samples), cfg, args.seed)
    encoders["pretrained"] = trained
    width = int(cfg.model.width)
    poolings = {"mean_sd": slice(None), "mean": slice(0, width), "sd": slice(width, None)}
    table = {}
    for name, model in encoders.items():
        z = {t: pretrain.embed(model, rows, int(cfg.probe.cells), args.seed) for t, rows in signal.items()}
        for pooling, cols in poolings.items():
            for c in (0.01, 0.1, 1.0, 10.0):
                aurocs = [probe.cv_auroc(z[t][:, cols], np.array([s.label for s in rows]), int(cfg.probe.folds), c,
                                         args.seed) for t, rows in signal.items()]
                table[f"{name} {pooling} C={c:g}"] = float(np.mean(aurocs))
    gaps = {k.replace("pretrained ", ""): table[k] - table[k.replace("pretrained", "random_init")]
            for k in table if k.startswith("pretrained")}
    report = {"seed": args.seed, "signal_mean_auroc": table, "pretrained_minus_random": gaps}
    print(json.dumps(report, indent=1))
    (work / "ablation.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

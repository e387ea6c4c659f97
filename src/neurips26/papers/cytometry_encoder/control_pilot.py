"""The positive control's pilot (JOURNAL 'Fourth pilot'; run by hand, on seeds outside every configured seed set, before
the final runs):

    python -m neurips26.papers.cytometry_encoder.control_pilot run --seed 98 --data RUNS --workdir /tmp/pc/98
    python -m neurips26.papers.cytometry_encoder.control_pilot select /tmp/pc/98/pilot.json /tmp/pc/99/pilot.json

RUNS is a default run's `runs/` folder (its corpus and marker vectors: the corpus does not depend on the control's
settings, universe.py). `run` writes every candidate design of the positive-control task (CANDIDATES: the shared core
drawn where the two moved populations agree, or at random; the frequency effect) from the task's own stream, ingests
them, and on the pilot seed measures per candidate: the true-frequency ceiling (the probe on the samples' true
population frequencies), the per-panel baselines on the shared markers (quantiles, Leiden, CytoSet), `--inits` random
initialisations of the encoder and the base encoder pretrained at the configured budget. `select` applies the rule
(SELECTION) to the seeds' reports: it reads the ceiling and the shared-marker quantiles only, never an encoder.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from neurips26.papers.cytometry_encoder.pilot_cli import pilot_main

CANDIDATES = [("agree", 0.5), ("agree", 0.75), ("agree", 1.0), ("agree", 1.25), ("random", 0.75), ("random", 1.0)]
SELECTION = {"min_ceiling": 0.95, "min_gap": 0.10}


def name(core: str, effect: float) -> str:
    return f"pc_{core}_{effect:g}".replace(".", "p")


def run(args) -> None:
    from omegaconf import OmegaConf

    from neurips26.common.models.allocator import keep_freed_memory
    from neurips26.common.pipeline.config import compose
    from neurips26.common.pipeline.seeding import seed_everything, set_threads
    from neurips26.papers.cytometry_encoder import baselines, corpus, experiments, ingest, marker_vectors, probe
    from neurips26.papers.cytometry_encoder.universe import read_frequencies, write_positive_controls

    set_threads(1)
    keep_freed_memory()
    cfg = compose("cytometry_encoder", ["scale=default", f"seeds=[{args.seed}]", *args.overrides])
    base = next(t for t in cfg.tasks if t.taxonomy == "positive_control")
    index = [str(t.name) for t in cfg.tasks].index(str(base.name))
    tasks = OmegaConf.create([{**OmegaConf.to_container(base), "name": name(c, e), "core": c, "effect": e,
                               "stream": int(base.get("stream", index + 1))} for c, e in CANDIDATES])
    work = args.workdir
    root, anndata = work / "candidates", work / "anndata"
    if not (anndata / "done").exists():
        info = write_positive_controls(cfg.universe, tasks, root, args.world)  # the candidates in the run's world
        ingest.ingest(root / "manifest.yaml", root / "fcs", anndata, work / "studies.csv", cfg.fcs, real=False,
                      seed=args.world)
        (work / "universe.json").write_text(json.dumps(info, indent=1))
        (anndata / "done").write_text("")
    info = json.loads((work / "universe.json").read_text())
    vectors = args.data / "marker_vectors.npz"
    samples, _ = experiments.load(cfg, args.data / "anndata" / f"seed{args.world}", vectors)
    cand = corpus.load_samples(anndata, marker_vectors.load(vectors, str(cfg.model.names)))
    task_rows = corpus.tasks(cand, [str(t.name) for t in tasks])
    truth = read_frequencies(root / "frequencies.csv")
    folds, c = int(cfg.probe.folds), float(cfg.probe.l2_c)
    report: dict = {"seed": args.seed, "inits": args.inits, "overrides": list(args.overrides), "selection": SELECTION,
                    "candidates": {}}
    start = time.perf_counter()
    for t in tasks:
        rows = task_rows[str(t.name)]
        y = np.array([s.label for s in rows])
        shared = baselines.shared_view(rows)
        b = cfg.baselines
        fit = baselines.cytoset_fit_predict(shared, b.cytoset, args.seed)
        r = {"core": str(t.core), "effect": float(t.effect), "design": info["tasks"][str(t.name)],
             "ceiling": probe.cv_auroc(np.stack([truth[s.id] for s in rows]), y, folds, c, args.seed),
             "quantiles": probe.cv_auroc(baselines.quantile_features(shared, list(b.quantiles)), y, folds, c, args.seed),
             "leiden_freq": probe.cv_auroc(baselines.leiden_frequencies(
                 shared, int(b.leiden.cells), int(b.leiden.neighbours), float(b.leiden.resolution), args.seed),
                 y, folds, c, args.seed),
             "cytoset": probe.cv_auroc(np.arange(len(rows))[:, None], y, folds, 0.0, args.seed, fit_predict=fit),
             "random_inits": experiments.random_inits(cfg, rows, args.seed, args.inits)}
        report["candidates"][str(t.name)] = r
    report["seconds_baselines"] = round(time.perf_counter() - start, 1)
    seed_everything(args.seed)
    start = time.perf_counter()
    frozen, _, losses = experiments.run_pretrain(cfg, args.seed, samples, task_rows, "base")
    report["seconds_pretrain"] = round(time.perf_counter() - start, 1)
    report["end_loss"] = float(frozen.recon_loss.iloc[0])
    for task, auroc in zip(frozen.task, frozen.auroc):
        r = report["candidates"][task]
        r["frozen"] = float(auroc)
        r["random_init_mean"] = float(np.mean(r["random_inits"]))
        r["random_init_sd"] = float(np.std(r["random_inits"], ddof=1))
        r["gain"] = r["frozen"] - r["random_init_mean"]
    work.mkdir(parents=True, exist_ok=True)
    (work / "pilot.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


def select(paths: list[Path]) -> dict:
    """The rule (fixed before the pilot ran; JOURNAL): average the ceiling and the shared-marker quantiles over the pilot
    seeds; a candidate is valid when the ceiling >= min_ceiling (the label is identifiable from frequencies) and the
    quantiles stay >= min_gap below it (the signal needs cross-panel alignment); chosen: the valid candidate with the
    smallest effect (the task stays off the ceiling), ties broken by the lower quantile AUROC. Encoders are not read."""
    reports = [json.loads(Path(p).read_text()) for p in paths]
    table = {}
    for task in reports[0]["candidates"]:
        rs = [r["candidates"][task] for r in reports]
        ceiling, quantiles = float(np.mean([r["ceiling"] for r in rs])), float(np.mean([r["quantiles"] for r in rs]))
        table[task] = {"core": rs[0]["core"], "effect": rs[0]["effect"], "ceiling": ceiling, "quantiles": quantiles,
                       "valid": ceiling >= SELECTION["min_ceiling"] and quantiles <= ceiling - SELECTION["min_gap"]}
    valid = [t for t, r in table.items() if r["valid"]]
    chosen = min(valid, key=lambda t: (table[t]["effect"], table[t]["quantiles"])) if valid else None
    return {"candidates": table, "chosen": chosen}


def main() -> None:
    pilot_main(run, select, lambda parser: parser.add_argument("--inits", type=int, default=5))


if __name__ == "__main__":
    main()

"""The specialists' budget pilot (JOURNAL 'Sixth change'; run by hand, on seeds outside every configured seed set, before
the final runs):

    python -m neurips26.papers.cytometry_encoder.specialist_pilot run --seed 96 --data RUNS --workdir /tmp/sp/96
    python -m neurips26.papers.cytometry_encoder.specialist_pilot select /tmp/sp/96/pilot.json /tmp/sp/97/pilot.json ...

RUNS is a default run's `runs/` folder (its AnnData and marker vectors; the universe does not depend on the seed).
`run` trains the specialist of every signal task (the paper's four; the same code as the pipeline's specialists,
`experiments.train_specialist`) at every budget of `--steps` (each a full cosine schedule) on the pilot seed, and probes
it frozen at every `--cells` (probe.cells), recording the process CPU of each training and each embedding. `select`
applies the rule (RULE, fixed before the pilot ran) to the seeds' reports and estimates the default run's quiet wall time
at each probe.cells (ESTIMATE, fixed before the pilot ran).
"""

from __future__ import annotations

import json
import time

import numpy as np

from neurips26.papers.cytometry_encoder.pilot_cli import pilot_main

# The rule: a budget b (any measured one but the largest) is sufficient at a probe.cells when no longer measured budget
# beats it by `tolerance` or more on the specialists' frozen AUROC averaged over the signal tasks and the pilot seeds;
# chosen: the smallest budget sufficient at every probe.cells measured; if none, `fallback` (the generalist's budget).
RULE = {"tolerance": 0.01, "fallback": 900}
# The quiet-machine estimate: the lead's re-measure of the fifth change (seeds 0-2: 572.5 s wall, 1,046 s kernel CPU;
# 15 specialist runs of 900 steps, 100 evaluation cells, ~220 task embeddings per default run); the wall scales with the
# CPU. probe.cells 200 comes back when the estimate at 200 cells is at most `target_wall`.
ESTIMATE = {"wall": 572.5, "cpu": 1046.0, "specialist_runs": 15, "steps_now": 900, "cells_now": 100,
            "task_embeddings": 220, "target_wall": 540.0}


def run(args) -> None:
    from omegaconf import OmegaConf

    from neurips26.common.models.allocator import keep_freed_memory
    from neurips26.common.pipeline.config import compose
    from neurips26.common.pipeline.seeding import seed_everything, set_threads
    from neurips26.papers.cytometry_encoder import experiments

    set_threads(1)
    keep_freed_memory()
    cfg = compose("cytometry_encoder", ["scale=default", f"seeds=[{args.seed}]", *args.overrides])
    samples, task_rows = experiments.load(cfg, args.data / "anndata" / f"seed{args.world}",
                                          args.data / "marker_vectors.npz")
    signal = [str(t.name) for t in cfg.tasks if t.signal and t.taxonomy != "positive_control"]
    report = {"seed": args.seed, "steps": sorted(args.steps), "cells": sorted(args.cells), "tasks": signal, "runs": []}
    for task in signal:
        for steps in sorted(args.steps):
            seed_everything(args.seed)
            start = time.process_time()
            model = experiments.train_specialist(cfg, args.seed, task_rows, task, steps)
            run = {"task": task, "steps": steps, "train_cpu": round(time.process_time() - start, 2)}
            for cells in sorted(args.cells):
                start = time.process_time()
                rows = experiments.evaluate_frozen(OmegaConf.merge(cfg, {"probe": {"cells": cells}}), model,
                                                   {task: task_rows[task]}, args.seed, "specialist")
                run[f"auroc_{cells}"] = round(float(rows[0]["auroc"]), 4)
                run[f"embed_cpu_{cells}"] = round(time.process_time() - start, 3)
            report["runs"].append(run)
            print(json.dumps(run), flush=True)
    args.workdir.mkdir(parents=True, exist_ok=True)
    (args.workdir / "pilot.json").write_text(json.dumps(report, indent=1))


def select(reports: list[dict]) -> dict:
    """The rule and the estimate (RULE, ESTIMATE; JOURNAL 'Sixth change') on the pilot seeds' reports."""
    steps = sorted(reports[0]["steps"])
    cells = sorted(reports[0]["cells"])
    runs = [r for rep in reports for r in rep["runs"]]

    def mean(key, budget):
        return float(np.mean([r[key] for r in runs if r["steps"] == budget]))

    out = {"seeds": [rep["seed"] for rep in reports], "auroc": {}, "doubling": {}, "sufficient": {}}
    for c in cells:
        a = {b: mean(f"auroc_{c}", b) for b in steps}
        out["auroc"][c] = a
        out["doubling"][c] = {f"{b}->{d}": a[d] - a[b] for b, d in zip(steps, steps[1:]) if d == 2 * b}
        out["sufficient"][c] = {b: all(a[d] - a[b] < RULE["tolerance"] for d in steps if d > b) for b in steps[:-1]}
    ok = [b for b in steps[:-1] if all(out["sufficient"][c][b] for c in cells)]
    out["chosen_steps"] = min(ok) if ok else RULE["fallback"]
    train = {b: mean("train_cpu", b) for b in steps}
    out["train_cpu_per_run"] = train
    e = ESTIMATE
    if e["steps_now"] in train:
        saving = e["specialist_runs"] * (train[e["steps_now"]] - train[out["chosen_steps"]])
    else:
        saving = 0.0
    out["specialist_cpu_saving"] = saving
    embed = {c: mean(f"embed_cpu_{c}", steps[0]) for c in cells}
    out["embed_cpu_per_task"] = embed
    out["estimated_wall"] = {}
    for c in cells:
        extra = e["task_embeddings"] * (embed[c] - embed.get(e["cells_now"], embed[c]))
        out["estimated_wall"][c] = e["wall"] * (e["cpu"] - saving + extra) / e["cpu"]
    fits = [c for c in cells if out["estimated_wall"][c] <= e["target_wall"]]
    out["chosen_cells"] = max(fits) if fits else e["cells_now"]
    return out


def main() -> None:
    def arguments(parser):
        parser.add_argument("--steps", type=int, nargs="+", default=[225, 450, 900, 1800])
        parser.add_argument("--cells", type=int, nargs="+", default=[100, 200])

    pilot_main(run, lambda paths: select([json.loads(p.read_text()) for p in paths]), arguments)


if __name__ == "__main__":
    main()

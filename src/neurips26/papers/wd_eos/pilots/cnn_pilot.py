"""wd_eos CNN pilot (run by hand, not by the pipeline; issue 29): on seeds OUTSIDE every configured seed set.

    scan SEED...           CNN sharpness at initialisation per seed (default sizes; to pick pilot seeds spanning it),
                           then the cost of one GD step and of one checkpoint
    run SEED LAMBDA CAP [ETA]  one CNN run (eta ETA, default 0.03; stopping rule 8 checkpoints) with a pilot cap;
                           writes its trace to results/wd_eos_pilot/cnn_wd<LAMBDA>_seed<SEED>.csv
                           (cnn_eta<ETA>_wd<LAMBDA>_seed<SEED>.csv for ETA != 0.03)
    show                   per pilot trace: S at init, sharpening time, EoS onset, stopping step, EoS amplitude
    trend [FOLDER]         the fourth pilot's rule (README, "Powered trend criterion and CNN replicates") on the CNN
                           runs in FOLDER/runs (default results/wd_eos) and their CPU times in logs/wd_eos/benchmarks

Needs results/wd_eos/config.yaml and data/raw/digits (snakemake results/wd_eos/config.yaml data/raw/digits/provenance.json).
The runs of 2026-12-01 (README, "CNN cap"):
    flock /tmp/neurips26-heavy.lock bash -c 'printf "23 0.01\\n47 0.01\\n37 0.01\\n73 0.01\\n23 0.0\\n" | \\
        xargs -P 2 -L 1 bash -c "python src/neurips26/papers/wd_eos/pilots/cnn_pilot.py run \\$0 \\$1 3600"'
    (second round: 13 19 29 41 43 53 67 71 at 0.01, cap 3600)
The third pilot (issue 29, third session; README, "CNN step size, third pilot"): `run SEED LAMBDA 1800 0.04` on the
seeds and lambdas written in the README before it ran.
"""

from __future__ import annotations

import glob
import json
import sys
import time
from pathlib import Path

OUT = Path("results/wd_eos_pilot")


def _setup(seed: int):
    import torch
    from omegaconf import OmegaConf

    from neurips26.papers.wd_eos import data

    torch.set_num_threads(1)
    cfg = OmegaConf.load("results/wd_eos/config.yaml")
    return cfg, data.load_split("data/raw/digits", cfg, seed)  # the run's seed draws the split (claims contract v2)


def scan(seeds: list[int]) -> None:
    import torch

    from neurips26.papers.wd_eos import measures, models
    from neurips26.papers.wd_eos.data import N_CLASSES

    init = {}
    for seed in seeds:
        cfg, split = _setup(seed)
        x, y = torch.from_numpy(split.x_train), torch.from_numpy(split.y_train)
        torch.manual_seed(seed)  # as experiments.run: the run seed sets the init
        model = models.build("cnn", cfg, split.shape, N_CLASSES)
        params = list(model.parameters())
        s, _, v = measures.sharpness_and_alignment(lambda m=model, x=x, y=y: models.square_loss(m(x), y), params,
                                                   int(cfg.eigen.iters), None, torch.Generator().manual_seed(seed))
        init[seed] = round(s, 2)
    t = time.time()
    for _ in range(20):
        grads = torch.autograd.grad(models.square_loss(model(x), y), params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= 0.03 * g
    step = (time.time() - t) / 20
    t = time.time()
    measures.sharpness_and_alignment(lambda: models.square_loss(model(x), y), params, int(cfg.eigen.iters), v,
                                     torch.Generator().manual_seed(0))
    measures.ntk(model, torch.from_numpy(split.x_probe))
    print(json.dumps({"init_S": init, "step_s": step, "checkpoint_s": time.time() - t}))


def run(seed: int, wd: float, cap: int, eta: float = 0.03) -> None:
    from neurips26.common.pipeline.seeding import seed_everything
    from neurips26.papers.wd_eos import experiments

    cfg, split = _setup(seed)
    cfg.grid.cnn.max_steps = cap
    seed_everything(seed)
    t = time.time()
    trace = experiments.run(cfg, split, "cnn", "coupled", eta, wd, seed, "cpu")
    OUT.mkdir(exist_ok=True)
    tag = "" if eta == 0.03 else f"eta{eta}_"
    trace.to_csv(OUT / f"cnn_{tag}wd{wd}_seed{seed}.csv", index=False)
    print(seed, wd, eta, "steps", int(trace.step.iloc[-1]), f"{time.time() - t:.1f}s", flush=True)


def show() -> None:
    import pandas as pd

    from neurips26.papers.wd_eos import summary

    for f in sorted(glob.glob(str(OUT / "cnn_*seed*.csv"))):
        t = pd.read_csv(f)
        r = summary.summarise_run(t, 0.9, 0.33, 8)
        print(Path(f).name, f"2/eta {t.two_over_eta.iloc[0]:.1f}",
              f"S0 {t.sharpness.iloc[0]:.1f}", "t0.9", r["sharpening_time"], "onset", r["eos_onset"],
              "stop", r["steps"], "complete", r["eos_complete"], f"amp {r['osc_amplitude']:.4f}")


# The fourth pilot (issue 29, fourth session; README "Powered trend criterion and CNN replicates"): CNN runs of the
# pipeline's own run rule on seeds 7, 8, 9 and their replicates 1007, 1008, 1009, then `trend FOLDER`.
PILOT4_HALVES = {"7-9": [7, 8, 9], "1007-1009": [1007, 1008, 1009], "all six": [7, 8, 9, 1007, 1008, 1009]}
LEAD_CPU = {"total": 361.0, "wall": 264.0, "mlp_and_summary": 185.1 + 5.9}  # the lead's default run (seeds 0-2)


def trend(folder: str) -> None:
    """The pre-registered rule of the fourth pilot: the trend criterion on both halves and all six seeds, the CPU time
    per CNN run (logs/wd_eos/benchmarks), the projected default wall time for R = 1 and 2, and the choice of R."""
    import pandas as pd

    from neurips26.papers.wd_eos import paper_claims, summary

    runs_dir = Path(folder) / "runs"
    files = sorted(runs_dir.glob("cnn_coupled_eta0.04_wd*/seed*.csv"))
    traces = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    runs = summary.run_table(traces, 0.9, 0.33, {"cnn": 8})
    print(f"{len(files)} runs; steps per run {sorted(runs.steps.unique().tolist())}; all met the rule: "
          f"{bool(runs.eos_complete.all())}")
    print(runs.pivot(index="seed", columns="wd", values="osc_amplitude").round(4).to_string())
    print(runs.pivot(index="seed", columns="wd", values="kernel_velocity").to_string(float_format="%.3g"))
    t = {}
    for name, seeds in PILOT4_HALVES.items():
        part = runs[runs.seed.isin(seeds)]
        kept = part[part.seed.isin(summary.common_seeds(part))]
        amp, vel = paper_claims.within_seed_trend(kept, "osc_amplitude"), paper_claims.within_seed_trend(part,
                                                                                                          "kernel_velocity")
        t[name] = (amp["t"], vel["t"])
        print(f"seeds {name}: amplitude t {amp['t']:.2f} (change over the grid {amp['change']:+.1%}, {amp['runs']} runs);"
              f" CNN velocity t {vel['t']:.2f} (change {vel['change']:+.1%}, {vel['runs']} runs)")
    bench = Path("logs/wd_eos/benchmarks")
    cpu = [float(pd.read_csv(bench / f"run_{f.parent.name}_{f.stem}.tsv", sep="\t").cpu_time.iloc[-1]) for f in files]
    per_run = sum(cpu) / len(cpu)
    print(f"CPU per CNN run: mean {per_run:.1f} s, min {min(cpu):.1f}, max {max(cpu):.1f}")
    projected = {r: LEAD_CPU["wall"] * (LEAD_CPU["mlp_and_summary"] + 12 * r * per_run) / LEAD_CPU["total"]
                 for r in (1, 2)}
    print("projected default wall (264 s x CPU / 361 s): " + ", ".join(f"R={r}: {v:.0f} s" for r, v in projected.items()))
    clear = all((v <= -4 or v >= 0) for pair in t.values() for v in pair)
    agree = all(len({v < -2 for v in (pair[i] for pair in t.values())}) == 1 for i in (0, 1))
    choice = 1 if (clear and agree) else (2 if projected[2] < 420 else 1)
    print(f"verdicts agree across halves and all six: {agree}; all clear of the threshold by 2: {clear} -> R = {choice}")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "scan":
        scan([int(a) for a in args])
    elif command == "run":
        run(int(args[0]), float(args[1]), int(args[2]), *(float(a) for a in args[3:4]))
    elif command == "trend":
        trend(args[0] if args else "results/wd_eos")
    else:
        show()

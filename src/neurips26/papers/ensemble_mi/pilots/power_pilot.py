"""Issue #69 pilot (seed 900, outside every configured and robustness seed set): per pool and pool size, the cost of
one seed's predictions and run_real, the power split's headroom (oracle - top-k, max over budgets) and the paired
standard error of greedy-MI - top-k over the seed's halves (one seed: the SE over 3 halves, a rough stand-in for the
9-unit SE of the configured run, which is about 1/sqrt(3) of it if seeds vary like halves).

Usage: python -m neurips26.papers.ensemble_mi.pilots.power_pilot TASK POOL [POOL ...] (prints one line per size).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.pipeline.config import compose
from neurips26.papers.ensemble_mi import experiments, predictions

SEED = 900
DATA = {"imdb": "ensemble_mi_imdb", "rt": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc"}


def predict(task: str, pool: int, family: str, out: Path) -> float:
    start = time.time()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "neurips26",
            "ensemble_mi",
            f"predict_{family}",
            "--config",
            "results/ensemble_mi/config.yaml",
            "--input",
            f"data/raw/{DATA[task]}/provenance.json",
            "--seed",
            str(SEED),
            "--output",
            str(out),
            "--threads",
            "1",
            f"task={task}",
            f"tasks.{task}.pool={pool}",
        ],
        check=True,
    )
    return time.time() - start


def main(task: str, pools: list[int]) -> None:
    cfg = compose("ensemble_mi", [])
    families = ["classic", "bagged"] + (["minilm"] if task in cfg.minilm.tasks else [])
    for pool in pools:
        folder = Path(f"/tmp/ensemble_mi_pilot/{task}_{pool}")
        folder.mkdir(parents=True, exist_ok=True)
        cost = {f: predict(task, pool, f, folder / f"{f}.csv") for f in families if not (folder / f"{f}.csv").exists()}
        frame = predictions.merge([pd.read_csv(folder / f"{f}.csv") for f in families])
        start = time.time()
        runs = experiments.run_real(cfg, task, frame, SEED)
        run_cost = time.time() - start
        acc = runs.groupby(["task", "method", "split", "budget"]).accuracy.mean()
        power = (acc[f"{task}_power", "oracle"] - acc[f"{task}_power", "top_k"]).groupby("budget").mean()
        gap = (acc[task, "greedy_mi"] - acc[task, "top_k"]).unstack("budget")
        se = (gap.std(ddof=1) / np.sqrt(len(gap))).max()
        indep = acc[f"{task}_indep2", "full_pool"].mean()
        full = acc[task, "greedy_mi"].unstack("budget").iloc[:, -1].mean()
        fitted = acc[f"{task}_copula", "full_pool"].mean() if (f"{task}_copula", "full_pool") in acc else float("nan")
        sat = acc[task, "greedy_mi"].unstack("budget").mean()
        m = len(sat)
        print(
            f"{task} pool {pool}: members {frame.shape[1] - 2}, predict s {cost}, run_real s {run_cost:.0f}, "
            f"headroom {power.max():+.4f}, paired SE (3 halves) max {se:.4f}, greedy-top-k mean over budgets "
            f"{gap.mean(axis=1).mean():+.4f}, full pool {full:.3f}, decorrelated full pool {indep:.3f}, copula-predicted "
            f"{fitted:.3f}; greedy-MI acc(1), acc(M/2), acc(M): {sat.iloc[0]:.3f} {sat.iloc[m // 2 - 1]:.3f} "
            f"{sat.iloc[-1]:.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1], [int(p) for p in sys.argv[2:]])

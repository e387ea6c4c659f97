"""Does each speed mechanism of docs/performance.md pay on the users' path? Each is measured against the plain way it
replaced, in fresh interpreters, in a throwaway copy of the repository:

    .venv/bin/python benchmarks/bench_mechanisms.py [--repeat 8]

- code stamps (common/pipeline/code_stamp): `snakemake -n results/all` against the same dry run with each rule's code
  input listed file by file;
- parse-time config (common/pipeline/config.scale_config + settings): the same dry run composing every paper's settings
  with Hydra's compose API;
- optimizers without the dynamo import (common/models/optim): one training job's optimizer cost, a fresh interpreter
  that builds a small MLP and takes 20 Adam steps, against torch.optim.Adam.

Variants run interleaved in a random order per repeat, so a change in the machine's speed hits each alike; the gain is
the paired difference (plain minus mechanism) per repeat, with its mean and 95% t interval over repeats. A mechanism
pays when the interval's lower end is above 0 and the gain is user-visible (>= 5% of the command it speeds up).
Results: benchmarks/results/mechanisms.csv.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.conftest import copy_repository, env_for  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "mechanisms.csv"

# Each plain variant: Python run before Snakemake's CLI in the same interpreter, undoing one mechanism.
LISTED_CODE_INPUTS = (
    "import neurips26.common.pipeline.code_stamp as stamp\n"
    "stamp.code_stamp = lambda files, sha256=None: [str(f) for f in files]\n"
)
HYDRA_SETTINGS = (
    "import neurips26.common.pipeline.config as config\n"
    "config.scale_config = lambda paper_id, scale, root=None: config.compose(paper_id, [f'scale={scale}'], root)\n"
)
DRY_RUN = ["-n", "--cores", "2", "results/all"]

TRAINING_JOB = """
import time, torch
start = time.perf_counter()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
{optimizer}
x, y = torch.randn(256, 64), torch.randint(0, 10, (256,))
for _ in range(20):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
print(time.perf_counter() - start)
"""
OPTIMIZERS = {
    "torch.optim": "opt = torch.optim.Adam(model.parameters(), lr=1e-3)",
    "common optim": "from neurips26.common.models import optim\nopt = optim.Adam(model.parameters(), lr=1e-3)",
}


def run_snakemake(copy: Path, prelude: str = "") -> float:
    code = f"{prelude}import sys\nfrom snakemake.cli import main\nsys.argv = ['snakemake', *{DRY_RUN!r}]\nmain()\n"
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code], cwd=copy, env=env_for(copy), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"dry run failed ({prelude.splitlines()[:1]}):\n{result.stderr[-3000:]}")
    return elapsed


def dry_run_variants(copy: Path) -> dict:
    return {
        "as shipped": lambda: run_snakemake(copy),
        "code inputs listed file by file": lambda: run_snakemake(copy, LISTED_CODE_INPUTS),
        "Hydra compose at parse time": lambda: run_snakemake(copy, HYDRA_SETTINGS),
    }


def training_job(copy: Path, optimizer: str) -> float:
    result = subprocess.run([sys.executable, "-c", TRAINING_JOB.format(optimizer=optimizer)], cwd=copy,
                            env=env_for(copy), capture_output=True, text=True, check=True)
    return float(result.stdout.strip())


def measure(variants: dict, repeat: int, rng: random.Random) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeat):
        order = list(variants)
        rng.shuffle(order)
        for name in order:
            times[name].append(variants[name]())
    return times


def paired_rows(group: str, times: dict[str, list[float]], reference: str) -> list[dict]:
    rows = []
    for name, values in times.items():
        if name == reference:
            continue
        gain = np.array(values) - np.array(times[reference])
        half = stats.t.ppf(0.975, len(gain) - 1) * gain.std(ddof=1) / np.sqrt(len(gain))
        pays = gain.mean() - half > 0 and gain.mean() >= 0.05 * np.median(values)
        rows.append({"command": group, "plain way": name, "mechanism_median_s": round(np.median(times[reference]), 3),
                     "plain_median_s": round(np.median(values), 3), "gain_mean_s": round(gain.mean(), 3),
                     "gain_ci_low_s": round(gain.mean() - half, 3), "gain_ci_high_s": round(gain.mean() + half, 3),
                     "repeats": len(gain), "pays": bool(pays)})
    return rows


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=8)
    args = parser.parse_args(argv)
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        copy = copy_repository(Path(tmp))
        run_snakemake(copy)  # the code stamps as a previous parse leaves them
        dry = measure(dry_run_variants(copy), args.repeat, rng)
        jobs = measure({name: (lambda o=o: training_job(copy, o)) for name, o in OPTIMIZERS.items()}, args.repeat, rng)
    frame = pd.DataFrame(paired_rows("snakemake -n results/all", dry, "as shipped")
                         + paired_rows("a training job (20 Adam steps)", jobs, "common optim"))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUT, index=False)
    print(frame.to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1:])

"""The pipeline's own budgets, measured on the full registry in a throwaway copy of the repository:

    .venv/bin/python benchmarks/bench_pipeline.py [--cores 2] [--repeat 5]

- `snakemake -n results/all` (default scale, nothing built): parse + DAG time, budget Snakemake's own floor + 1.5 s
  (the floor moves with the machine; the pipeline's share is what this project controls), judged on the
  median of the repeats after the first; the first (a fresh copy: no code stamps written yet) is printed
  apart, and so is Snakemake's own floor on this machine, the dry run of a one-rule workflow, because this machine's
  speed varies about twofold between hours (the floor measured 1.05 to 2.4 s on 2026-12-02) and the floor separates
  that from the pipeline's share;
- the tiny end-to-end of every implemented paper (`--profile profiles/ci`), budget 6 min on 2 cores, with each paper's share
  (summed job seconds from its Snakemake benchmark files), every job a fresh interpreter as in a user's run;
- a no-op rerun of the built tiny tree, budget 5 s.
It prints the numbers and which budget is over; it is a benchmark, not a test (timings belong here, not in assertions).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.conftest import copy_repository, env_for  # noqa: E402

BUDGETS = {"dry_run_s": 1.5, "tiny_end_to_end_s": 360.0, "noop_rerun_s": 5.0}  # dry run: seconds above the floor


ONE_RULE = 'rule all:\n    output: "done.txt"\n    shell: "touch {output}"\n'


def timed(copy: Path, *args: str) -> float:
    env = env_for(copy)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=copy, env=env, text=True,
                            capture_output=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"snakemake {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return elapsed


def paper_shares(copy: Path) -> pd.DataFrame:
    rows = []
    for folder in sorted((copy / "logs").glob("*/benchmarks")):
        seconds = sum(pd.read_csv(f, sep="\t")["s"].iloc[-1] for f in folder.glob("*.tsv"))
        rows.append({"paper": folder.parent.name, "job_seconds": round(seconds, 1)})
    frame = pd.DataFrame(rows).sort_values("job_seconds", ascending=False)
    frame["share"] = (frame.job_seconds / frame.job_seconds.sum()).round(3)
    return frame


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        copy = copy_repository(Path(tmp))
        floor_dir = Path(tmp, "one_rule")
        floor_dir.mkdir()
        (floor_dir / "Snakefile").write_text(ONE_RULE)
        first_dry_run = timed(copy, "-n", "results/all")
        floor, dry_runs = [], []
        for _ in range(args.repeat):  # alternated, so that a change in the machine's speed hits both alike
            floor.append(timed(floor_dir, "-n", "done.txt"))
            dry_runs.append(timed(copy, "-n", "results/all"))
        measured = {"dry_run_s": statistics.median(dry_runs) - statistics.median(floor)}
        measured["tiny_end_to_end_s"] = timed(copy, "--profile", "profiles/ci", "--cores", str(args.cores), "results/all")
        measured["noop_rerun_s"] = statistics.median(
            timed(copy, "--profile", "profiles/ci", "--cores", str(args.cores), "results/all") for _ in range(args.repeat))
        shares = paper_shares(copy)
    print(shares.to_string(index=False))
    print(f"dry runs: first {first_dry_run:.2f} s, then {' '.join(f'{t:.2f}' for t in dry_runs)} s; Snakemake's floor "
          f"(one-rule workflow) {' '.join(f'{t:.2f}' for t in floor)} s: the pipeline's share "
          f"{statistics.median(dry_runs) - statistics.median(floor):.2f} s (median minus median)")
    for key, value in measured.items():
        verdict = "ok" if value <= BUDGETS[key] else "OVER BUDGET"
        print(f"{key:>20}: {value:7.1f} s  (budget {BUDGETS[key]:.1f} s)  {verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])

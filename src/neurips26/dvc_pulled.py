"""After `dvc pull`: check that the pulled outputs belong to this commit, then give them one modification time.

    dvc pull && python -m neurips26 dvc-pulled      # then `snakemake -n results/all` has nothing to do

Why: DVC restores contents, not times. `dvc pull` writes each output when it checks it out, in no fixed order, so a
table can come out older than the run CSV it was computed from, and Snakemake, which decides by modification times (a
fresh clone has no .snakemake metadata), would redo that job and everything after it.

What it does, in this order:
1. `dvc status` must report nothing: every stage's code, rules, params and data are those recorded in dvc.lock, and
   every output is the one dvc.lock names. Otherwise it prints the status, changes nothing and exits 1: those stages
   need a real rebuild (`dvc repro`, or `snakemake`), and touching their outputs would hide it.
2. Every file and folder under the outputs recorded in dvc.lock gets the same modification time, now: no output is then
   older than another output it was made from, and all are newer than the files git checked out, so Snakemake sees the
   pipeline as built. A later edit of code or config is newer still and re-runs what it should.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import repo_root


def dvc_status(root: Path) -> dict:
    result = subprocess.run([sys.executable, "-m", "dvc", "status", "--json"], cwd=root, capture_output=True, text=True)
    if result.returncode != 0:
        raise UserError(f"`dvc status` failed in {root}:\n{result.stdout}{result.stderr}")
    return json.loads(result.stdout or "{}")


def locked_outputs(root: Path) -> list[Path]:
    lock = root / "dvc.lock"
    if not lock.is_file():
        raise UserError(f"{lock} does not exist: nothing was reproduced or pulled in this repository")
    stages = (yaml.safe_load(lock.read_text()) or {}).get("stages", {})
    return [root / out["path"] for stage in stages.values() for out in stage.get("outs", [])]


def settle(root: Path) -> int:
    """Give every file and folder under the dvc.lock outputs one modification time; the number of paths set."""
    now = time.time_ns()
    count = 0
    for out in locked_outputs(root):
        if not out.exists():
            raise UserError(f"{out.relative_to(root)} is in dvc.lock but not here: run `dvc pull` first")
        paths = [out] if out.is_file() else [out, *out.rglob("*")]
        for path in paths:
            os.utime(path, ns=(now, now), follow_symlinks=False)
            count += 1
    return count


def main(argv: list[str]) -> None:
    if argv:
        raise UserError("usage: python -m neurips26 dvc-pulled (no arguments; run it after `dvc pull`)")
    root = repo_root()
    status = dvc_status(root)
    if status:
        print(json.dumps(status, indent=2), file=sys.stderr)
        raise UserError(f"`dvc status` is not clean ({', '.join(status)}): these stages differ from dvc.lock and need a "
                        "rebuild (`dvc repro`); no modification time was changed")
    print(f"dvc status is clean; set one modification time on {settle(root)} pulled paths")

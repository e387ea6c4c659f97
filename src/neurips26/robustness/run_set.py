"""Run one paper on one robustness seed set, as its own Snakemake run in a work folder of its own.

Why a nested run: every paper's rules write results/<paper_id>/... for the configured seeds, and a seed set is a whole
other results tree (tables, figures and claims over other seeds). The work folder links the project's config/, src/,
workflow/ and data/, so the set reads the same config tree and code and reuses the data the main run prepared (the rule
that calls this takes the main run's claims.json as input, so data/ is complete before any set starts and no two sets
prepare the same dataset at once). The set's claims.json is copied out with the seeds it was run on.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from neurips26.common.pipeline.artifacts import write_json
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import repo_root
from neurips26.common.pipeline.run_provenance import git_state
from neurips26.robustness.seed_sets import parse_set_name

SHARED = ("config", "data", "src", "workflow")


def prepare_workdir(workdir: Path, root: Path) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    for name in SHARED:
        link = workdir / name
        if not link.is_symlink():
            link.symlink_to(root / name, target_is_directory=True)


def snakemake_command(root: Path, workdir: Path, paper_id: str, seeds: list[int], cores: int, run: dict) -> list[str]:
    seed_list = ",".join(str(seed) for seed in seeds)
    return [sys.executable, "-m", "snakemake", "--snakefile", str(root / "Snakefile"), "--directory", str(workdir),
            "--cores", str(cores), "--config", f"scale={run['scale']}", f"data={run['data']}", f"device={run['device']}",
            f"seeds=[{seed_list}]", f"papers=[{paper_id}]",
            # inside a set no further sets: its seeds are the configured ones there
            "robustness={sets: 0, size: 1, first_seed: 0}",
            "--", f"results/{paper_id}/claims.json"]


def run_set(paper_id: str, seeds: list[int], workdir: Path, output: Path, cores: int, run: dict) -> None:
    root = repo_root()
    prepare_workdir(workdir, root)
    command = snakemake_command(root, workdir.resolve(), paper_id, seeds, cores, run)
    print("robustness set:", " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        raise UserError(f"robustness: {paper_id} on seeds {seeds} failed; see the log above and {workdir}/logs/")
    document = json.loads((workdir / "results" / paper_id / "claims.json").read_text())
    if sorted(int(s) for s in document["seeds"]) != sorted(seeds):
        raise UserError(f"robustness: {workdir}/results/{paper_id}/claims.json was run on seeds {document['seeds']}, "
                        f"not {seeds}")
    # the work folder is not a checkout (git finds no HEAD there): the set ran the project's own tree, through the links
    document["provenance"]["commit"], document["provenance"]["dirty"] = git_state(root)
    write_json(output, document)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m neurips26 robustness set")
    parser.add_argument("--paper", required=True)
    parser.add_argument("--seeds", required=True, help="the set's name, e.g. 100-101-102")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--cores", type=int, default=1)
    parser.add_argument("--scale", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--device", required=True)
    args = parser.parse_args(argv)
    run = {"scale": args.scale, "data": args.data, "device": args.device}
    run_set(args.paper, parse_set_name(args.seeds), args.workdir, args.output, args.cores, run)

"""Shared fixtures: the repository root, and a throwaway copy of the repository for workflow tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


def copy_repository(dest: Path) -> Path:
    """Copy what git would ship (tracked and untracked-but-not-ignored files) into `dest`, as a fresh git repo."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    # a fixed date: copies of the same files get the same commit, which every claims.json records (provenance), so
    # results built in two copies (the local and the cluster run) compare byte for byte
    dated = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "copy"], cwd=dest, check=True, env=dated)
    return dest


# The environment pytest started with: in-process tests may set variables (thread limits, seeds) that must not reach the
# pipeline runs the workflow tests start, as they would not reach a user's run.
STARTING_ENV = dict(os.environ)


def env_for(copy: Path) -> dict:
    """Run the copy's own code (not the editable install's) and never touch the network."""
    env = dict(STARTING_ENV)
    env["PYTHONPATH"] = str(copy / "src")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env.pop("NEURIPS26_ROOT", None)
    env["DVC_NO_ANALYTICS"] = "1"
    return env


def snakemake(copy: Path, *args: str, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess:
    """The command a user runs, in the copy (every job a fresh interpreter, as in a user's run)."""
    env = env_for(copy)
    try:
        result = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=copy, env=env, text=True,
                                capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as hung:  # say which jobs ran and which one hung, not only that it timed out
        log = hung.stderr.decode(errors="replace") if isinstance(hung.stderr, bytes) else (hung.stderr or "")
        raise AssertionError(f"snakemake {' '.join(args)} ran past {timeout} s; its log ends:\n{log[-6000:]}") from None
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")
    return result


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """A copy of the repository with results/all built at the tiny scale (the CI profile)."""
    copy = copy_repository(tmp_path_factory.mktemp("repo"))
    # A guard against a hung run, not a speed test (benchmarks/bench_pipeline.py measures the tiny run and each
    # paper's share).
    snakemake(copy, "--profile", "profiles/ci", "--cores", "2", "results/all", timeout=2400)
    return copy


def mark_planned(dest: Path, paper_id: str) -> Path:
    """Write dest/config/papers.yaml: this repository's registry with `paper_id` planned (every paper of the batch is
    implemented now, so the refusals of planned papers are tested on such a registry)."""
    import yaml

    path = dest / "config" / "papers.yaml"
    document = yaml.safe_load((ROOT / "config" / "papers.yaml").read_text())
    for entry in document["papers"]:
        if entry["id"] == paper_id:
            entry["status"] = "planned"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path

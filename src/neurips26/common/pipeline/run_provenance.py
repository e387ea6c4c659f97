"""What produced a claims.json: the project commit (and whether the tracked tree was dirty), Python and the key
package versions, the run's scale, data mode and seeds, and the sha256 of the resolved config and of each input dataset's
provenance record (which lists the sha256 of every file of that dataset). A reader can tell from it which code,
environment, settings and data a verdict came from."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

import yaml

from neurips26.common.pipeline.digests import sha256_of
from neurips26.common.pipeline.registry import repo_root

KEY_PACKAGES = ("torch", "numpy", "scipy", "pandas", "scikit-learn", "snakemake", "dvc", "hydra-core")


def git_state(root: Path) -> tuple[str | None, bool | None]:
    """(commit, dirty): HEAD of the repository at `root` and whether a tracked file differs from it; (None, None)
    outside a git checkout (a copied tree, an unpacked archive)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)

    try:
        head = git("rev-parse", "--verify", "HEAD")
        if head.returncode != 0 or not (root / ".git").exists():
            return None, None
        status = git("status", "--porcelain", "--untracked-files=no")
        return head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None, None


def package_versions(names=KEY_PACKAGES) -> dict[str, str | None]:
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def input_datasets(paper_id: str, root: Path) -> dict[str, str]:
    """{data/raw/<id>/provenance.json: sha256} for every dataset of config/datasets.yaml that lists this paper and has
    been prepared (a dataset this run did not prepare, such as a real-data source at the embedded default, is absent)."""
    registry = yaml.safe_load((root / "config" / "datasets.yaml").read_text())["datasets"]
    found = {}
    for dataset in registry:
        record = root / "data" / "raw" / dataset["id"] / "provenance.json"
        if paper_id in dataset.get("papers", []) and record.is_file():
            found[str(record.relative_to(root))] = sha256_of(record)
    return found


def run_provenance(paper_id: str, cfg, config_path: Path | None) -> dict:
    root = repo_root()
    commit, dirty = git_state(root)
    return {"commit": commit, "dirty": dirty, "python": platform.python_version(), "packages": package_versions(),
            "scale": cfg.scale_name, "data": cfg.data, "seeds": [int(s) for s in cfg.seeds],
            "config_sha256": sha256_of(config_path) if config_path and Path(config_path).is_file() else None,
            "inputs": input_datasets(paper_id, root)}

"""The dataset registry, config/datasets.yaml: every dataset's real source (URL, sha256, license) and embedded source."""

from __future__ import annotations

import datetime as _dt
import platform
from dataclasses import dataclass
from pathlib import Path

import yaml

from neurips26.common.artifacts import write_json
from neurips26.common.errors import UserError
from neurips26.common.fetch import download, verify_sha256
from neurips26.common.registry import repo_root


@dataclass(frozen=True)
class RealFile:
    name: str
    url: str
    sha256: str


@dataclass(frozen=True)
class Dataset:
    id: str
    papers: list[str]
    license: str
    embedded: dict
    real: list[RealFile]

    def raw_dir(self, root: Path) -> Path:
        return root / "data" / "raw" / self.id


def load_datasets(path: Path | None = None) -> dict[str, Dataset]:
    path = path or repo_root() / "config" / "datasets.yaml"
    entries = yaml.safe_load(path.read_text())["datasets"]
    datasets = {}
    for entry in entries:
        real = [RealFile(**f) for f in entry.get("real", {}).get("files", [])]
        for f in real:
            if len(f.sha256) != 64:
                raise UserError(f"{path}: dataset {entry['id']!r} file {f.name!r} has no valid sha256")
        datasets[entry["id"]] = Dataset(entry["id"], entry.get("papers", []), entry.get("license", "unknown"),
                                        entry.get("embedded", {}), real)
    return datasets


def get_dataset(dataset_id: str, path: Path | None = None) -> Dataset:
    datasets = load_datasets(path)
    if dataset_id not in datasets:
        raise UserError(f"unknown dataset {dataset_id!r}; known: {', '.join(datasets)}")
    return datasets[dataset_id]


def fetch_real(dataset: Dataset, root: Path) -> list[Path]:
    """Download every file of a dataset's real source into data/raw/<id>/ (skipping files already verified)."""
    if not dataset.real:
        raise UserError(f"dataset {dataset.id!r} has no real source in config/datasets.yaml")
    paths = []
    for f in dataset.real:
        dest = dataset.raw_dir(root) / f.name
        if dest.is_file():
            verify_sha256(dest, f.sha256)
        else:
            download(f.url, dest, f.sha256)
        paths.append(dest)
    write_provenance(dataset.raw_dir(root) / "provenance.json", dataset, mode="real",
                     files={f.name: {"url": f.url, "sha256": f.sha256} for f in dataset.real})
    return paths


def write_provenance(path: Path, dataset: Dataset, mode: str, **details) -> None:
    """Where the data came from, beside the data: source, versions, license and the time it was made."""
    write_json(path, {"dataset": dataset.id, "mode": mode, "license": dataset.license, "papers": dataset.papers,
                      "python": platform.python_version(), "created": _dt.date.today().isoformat(), **details})

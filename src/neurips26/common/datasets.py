"""The dataset registry, config/datasets.yaml: every dataset's real source (URL, checksum, license) and embedded source."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

import yaml

from neurips26.common.artifacts import atomic_path, write_json
from neurips26.common.errors import UserError
from neurips26.common.fetch import download, sha256_of, verify_checksums, verify_sha256
from neurips26.common.registry import repo_root


@dataclass(frozen=True)
class RealFile:
    """One file of a real source. sha256, or the md5 the dataset's maintainers publish (then the sha256 of the verified
    download is pinned in provenance.json)."""

    name: str
    url: str
    sha256: str | None = None
    md5: str | None = None

    def check(self, registry: Path, dataset_id: str) -> None:
        valid_sha = self.sha256 is not None and len(self.sha256) == 64
        valid_md5 = self.md5 is not None and len(self.md5) == 32
        if not (valid_sha or valid_md5) or (self.sha256 is not None and not valid_sha) or (
                self.md5 is not None and not valid_md5):
            raise UserError(f"{registry}: dataset {dataset_id!r} file {self.name!r} needs a valid sha256 (64 hex) or a "
                            "published md5 (32 hex)")


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
            f.check(path, entry["id"])
        datasets[entry["id"]] = Dataset(entry["id"], entry.get("papers", []), entry.get("license", "unknown"),
                                        entry.get("embedded", {}), real)
    return datasets


def get_dataset(dataset_id: str, path: Path | None = None) -> Dataset:
    datasets = load_datasets(path)
    if dataset_id not in datasets:
        raise UserError(f"unknown dataset {dataset_id!r}; known: {', '.join(datasets)}")
    return datasets[dataset_id]


MIRROR_VARIABLE = "NEURIPS26_DATA_MIRROR"


def source_url(dataset: Dataset, f: RealFile) -> str:
    """The file's public URL, or <mirror>/<dataset id>/<file name> when NEURIPS26_DATA_MIRROR is set (a site mirror, a
    login-node server for compute nodes without internet, or a local server in tests). Checksums are verified either way."""
    mirror = os.environ.get(MIRROR_VARIABLE, "").rstrip("/")
    return f"{mirror}/{dataset.id}/{f.name}" if mirror else f.url


def fetch_real(dataset: Dataset, root: Path) -> list[Path]:
    """Download every file of a dataset's real source into data/raw/<id>/ (skipping files already verified)."""
    if not dataset.real:
        raise UserError(f"dataset {dataset.id!r} has no real source in config/datasets.yaml")
    paths, files = [], {}
    for f in dataset.real:
        dest = dataset.raw_dir(root) / f.name
        url = source_url(dataset, f)
        if dest.is_file():
            verify_checksums(dest, f.sha256, f.md5)
        else:
            download(url, dest, f.sha256, f.md5)
        paths.append(dest)
        files[f.name] = {"url": url, "sha256": f.sha256 or sha256_of(dest), "sha256_source":
                         "config/datasets.yaml" if f.sha256 else "pinned on first fetch (md5-verified)", "md5": f.md5}
    write_provenance(dataset.raw_dir(root) / "provenance.json", dataset, mode="real", files=files)
    return paths


def prepare(dataset: Dataset, mode: str, root: Path) -> Path:
    """Materialise a dataset under data/raw/<id>/ and return its provenance.json.

    real: download every file (sha256-checked). embedded: copy files shipped inside an installed registry package
    (sha256-checked) or, for a generator, record which generator makes the data inside the run stages.
    """
    if mode == "real":
        fetch_real(dataset, root)
    elif mode == "embedded":
        extract_embedded(dataset, root)
    else:
        raise UserError(f"config key 'data': {mode!r} is not one of embedded, real")
    return dataset.raw_dir(root) / "provenance.json"


def extract_embedded(dataset: Dataset, root: Path) -> None:
    source = dataset.embedded
    if "generator" in source:
        write_provenance(dataset.raw_dir(root) / "provenance.json", dataset, mode="embedded",
                         generator=source["generator"], description=source.get("description", ""))
        return
    if "package" not in source:
        raise UserError(f"dataset {dataset.id!r} has no embedded source (generator or package) in config/datasets.yaml")
    import importlib.metadata
    import shutil

    package, files = source["package"], source.get("files", [])
    try:
        version = importlib.metadata.version(package)
        installed = {str(f): f for f in importlib.metadata.files(package) or []}
    except importlib.metadata.PackageNotFoundError:
        raise UserError(f"dataset {dataset.id!r} needs the package {package!r}, which is not installed") from None
    copied = {}
    for entry in files:
        if entry["path"] not in installed:
            raise UserError(f"dataset {dataset.id!r}: {entry['path']} is not part of the installed {package} {version}")
        origin = Path(installed[entry["path"]].locate())
        verify_sha256(origin, entry["sha256"])
        dest = dataset.raw_dir(root) / Path(entry["path"]).name
        with atomic_path(dest) as tmp:
            shutil.copyfile(origin, tmp)
        copied[dest.name] = {"package_path": entry["path"], "sha256": entry["sha256"]}
    write_provenance(dataset.raw_dir(root) / "provenance.json", dataset, mode="embedded", package=package,
                     version=version, files=copied)


def write_provenance(path: Path, dataset: Dataset, mode: str, **details) -> None:
    """Where the data came from, beside the data: source, versions, license and the time it was made."""
    write_json(path, {"dataset": dataset.id, "mode": mode, "license": dataset.license, "papers": dataset.papers,
                      "python": platform.python_version(), **details})

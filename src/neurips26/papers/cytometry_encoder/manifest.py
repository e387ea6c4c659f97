"""The study manifest: which studies, which FCS files (URL + sha256), which panel, labels and license.

One format for the real corpus (data/manifests/cytometry_studies.yaml, fetched by the data rules) and for the synthetic
universe (written by the generator next to its FCS files). Each study:

    - id: FR-FCM-ZZZU                 # FlowRepository / ImmPort accession, verified by whoever adds it
      source: FlowRepository
      license: CC-BY-4.0
      access: public                  # or credentialed: skipped by the fetch with a message, never embedded
      panel: [CD3, CD4, ...]          # optional: the harmonised markers every file must carry
      files:
        - path: 001.fcs               # inside data/raw/cytometry/<id>/
          url: https://...            # real studies only
          sha256: <64 hex>            # real studies only; the download must match it
          sample: s001
          labels: {condition: HEU}    # sample-level labels (strings)

Extra study keys (role, task, taxonomy) are kept as annotations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from neurips26.common.pipeline.errors import UserError

ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
SHA = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class StudyFile:
    path: str
    sample: str
    labels: dict
    url: str | None = None
    sha256: str | None = None


@dataclass
class Study:
    id: str
    files: list[StudyFile]
    license: str = "unknown"
    source: str = ""
    access: str = "public"
    panel: list[str] | None = None
    annotations: dict = field(default_factory=dict)


def _check(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise UserError(f"{where}: {message}")


def parse_study(entry: dict, where: str, real: bool) -> Study:
    _check(isinstance(entry, dict) and "id" in entry, where, "each study needs an 'id'")
    sid = str(entry["id"])
    where = f"{where} study {sid!r}"
    _check(bool(ID.match(sid)), where, "the id may hold letters, digits, '_', '.', '-' only")
    files = entry.get("files") or []
    _check(bool(files), where, "lists no files")
    parsed = []
    for i, f in enumerate(files):
        fw = f"{where} file {i}"
        _check(isinstance(f, dict) and f.get("path") and f.get("sample"), fw, "needs 'path' and 'sample'")
        _check(".." not in Path(str(f["path"])).parts, fw, "the path must stay inside the study folder")
        if real:
            _check(bool(f.get("url")), fw, "a real study file needs its 'url'")
            _check(bool(SHA.match(str(f.get("sha256", "")))), fw, "needs a 64-hex 'sha256' from a verified download")
        labels = {str(k): str(v) for k, v in (f.get("labels") or {}).items()}
        parsed.append(StudyFile(str(f["path"]), str(f["sample"]), labels, f.get("url"), f.get("sha256")))
    samples = [f.sample for f in parsed]
    _check(len(set(samples)) == len(samples), where, "sample names must be unique")
    known = {"id", "files", "license", "source", "access", "panel"}
    access = str(entry.get("access", "public"))
    _check(access in ("public", "credentialed"), where, f"access {access!r} is not one of public, credentialed")
    return Study(sid, parsed, str(entry.get("license", "unknown")), str(entry.get("source", "")), access,
                 list(entry["panel"]) if entry.get("panel") else None, {k: v for k, v in entry.items() if k not in known})


def load_manifest(path: str | Path, real: bool) -> list[Study]:
    path = Path(path)
    if not path.is_file():
        raise UserError(f"study manifest {path} is missing")
    try:
        document = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except yaml.YAMLError as exc:
        raise UserError(f"study manifest {path} is not valid YAML: {exc}") from None
    entries = document.get("studies") or []
    _check(isinstance(entries, list), str(path), "'studies' must be a list")
    studies = [parse_study(e, str(path), real) for e in entries]
    ids = [s.id for s in studies]
    _check(len(set(ids)) == len(ids), str(path), "study ids must be unique")
    return studies


def write_manifest(path: str | Path, studies: list[dict]) -> None:
    from neurips26.common.pipeline.artifacts import write_text

    write_text(path, yaml.safe_dump({"studies": studies}, sort_keys=False, width=120))


def fetch_studies(manifest: str | Path, dest: Path) -> dict:
    """Download every public study's files into dest/<study>/ (sha256-checked, atomic; verified files are kept).
    Credentialed studies are skipped with a message. Returns the provenance record."""
    from neurips26.common.data.fetch import download
    from neurips26.common.pipeline.digests import verify_sha256

    fetched, skipped = {}, {}
    for study in load_manifest(manifest, real=True):
        if study.access != "public":
            print(f"skipping {study.id}: access is {study.access}; fetch it with your own credentials into "
                  f"{dest / study.id}/ (the sha256 sums in the manifest are still checked at ingest)")
            skipped[study.id] = study.access
            continue
        for f in study.files:
            target = dest / study.id / f.path
            if target.is_file():
                verify_sha256(target, f.sha256)
            else:
                download(f.url, target, f.sha256)
        fetched[study.id] = {"files": len(study.files), "license": study.license, "source": study.source}
    return {"manifest": str(manifest), "studies": fetched, "skipped": skipped}

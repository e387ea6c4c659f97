"""Prepared inputs, verified when read.

The data_prepare rule records the sha256 of every file it puts under data/raw/<id>/ in that folder's provenance.json
(downloads: checked against config/datasets.yaml, or pinned after the published md5 matched; package and Debian files:
checked against config/datasets.yaml before the copy). A file replaced afterwards (by hand, a bad sync, a tampered cache)
would otherwise be read silently, so every loader goes through `verified_input(folder)` before it opens anything there:
each recorded file (and each recorded folder, by its tree digest) must still have its recorded sha256, else the job stops
with an error naming the file and the command that re-prepares it. The stage helper `stage.prepared_data_dir` calls it,
so a paper that reads data/raw through that helper needs nothing else. A folder is hashed once per job (process): later
calls only compare the files' stat signatures (size, mtime, inode), so a file changed meanwhile is hashed again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

from neurips26.common.pipeline.errors import UserError

RECORD = "provenance.json"
_VERIFIED: dict[Path, tuple] = {}  # resolved folder -> stat signature of the record and every file it checked


def reprepare_command(folder: Path, mode: str | None) -> str:
    """The shell command that rebuilds a prepared folder (the data_prepare / cytometry_fetch rule's output)."""
    from neurips26.common.pipeline.registry import repo_root

    shown = Path(folder)
    try:
        shown = Path(folder).resolve().relative_to(repo_root())
    except ValueError:
        pass
    config = f" --config data={mode}" if mode in ("embedded", "real") else ""
    return f"rm -r {shown} && snakemake --cores 1 {shown}/{RECORD}{config}"


def _relative(name: str, record: Path) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts or ".." in path.parts:
        raise UserError(f"{record}: recorded file name {name!r} must be a path inside the folder")
    return path


def _checks(provenance: dict, folder: Path, record: Path, redo: str) -> list[tuple[str, Path, str]]:
    """(kind, path, expected sha256) of every file ('file') and folder ('tree') the record vouches for."""
    files = provenance.get("files") or {}
    if not isinstance(files, dict):
        raise UserError(f"{record}: 'files' must map names to their checksums; re-prepare the folder: {redo}")
    checks = []
    for name, entry in files.items():
        if isinstance(entry, dict) and "tree_sha256" in entry:  # copy_tree records folders among the files
            checks.append(("tree", folder / _relative(name, record), str(entry["tree_sha256"])))
        elif isinstance(entry, dict) and len(str(entry.get("sha256") or "")) == 64:
            checks.append(("file", folder / _relative(name, record), str(entry["sha256"])))
        else:
            raise UserError(f"{record}: file {name!r} has no recorded sha256, so it cannot be verified; re-prepare "
                            f"the folder: {redo}")
    if not checks and "generator" not in provenance:
        raise UserError(f"{record} records no file with its sha256 (and no generator), so nothing in {folder} can be "
                        f"verified; re-prepare it: {redo}")
    return checks


def _tree_files(tree: Path) -> dict[str, Path]:
    return {p.relative_to(tree).as_posix(): p for p in sorted(tree.rglob("*")) if p.is_file()}


def _signature(paths: list[Path]) -> tuple:
    out = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            return ()
        out.append((str(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev))
    return tuple(out)


def verified_input(folder: str | Path) -> Path:
    """`folder` (data/raw/<id>/) once every file its provenance.json records still has the recorded sha256.

    UserError naming the file, the recorded and the found sha256, and the command that re-prepares the folder, when a
    file is missing, replaced or corrupted, or when the record vouches for nothing (no sha256 and no generator)."""
    from neurips26.common.pipeline.digests import sha256_of, tree_digest

    folder = Path(folder)
    record = folder / RECORD
    if not record.is_file():
        raise UserError(f"{record} is missing: {folder} was not prepared by the data_prepare rule; prepare it: "
                        f"{reprepare_command(folder, None)}")
    try:
        provenance = json.loads(record.read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"{record} is not readable JSON ({exc}); re-prepare the folder: "
                        f"{reprepare_command(folder, None)}") from None
    if not isinstance(provenance, dict):
        raise UserError(f"{record} must hold a JSON object; re-prepare the folder: {reprepare_command(folder, None)}")
    redo = reprepare_command(folder, provenance.get("mode"))
    checks = _checks(provenance, folder, record, redo)
    covered = [record] + [p for kind, path, _ in checks
                          for p in ([path] if kind == "file" else [path, *_tree_files(path).values()])]
    key, signature = folder.resolve(), _signature(covered)
    if signature and _VERIFIED.get(key) == signature:
        return folder
    for kind, path, expected in checks:
        if kind == "file":
            if not path.is_file():
                raise UserError(f"{path} is missing, but {record} records it; re-prepare the folder: {redo}")
            actual = sha256_of(path)
        else:
            if not path.is_dir():
                raise UserError(f"the folder {path} is missing, but {record} records it; re-prepare: {redo}")
            actual = tree_digest(_tree_files(path))
        if actual != expected:
            what = "file" if kind == "file" else "folder (tree digest of its files)"
            raise UserError(f"{path}: this {what} has sha256 {actual}, but {record} records {expected}: it was "
                            f"replaced or corrupted after data_prepare made it, and is refused. Re-prepare it: {redo}")
    if signature:
        _VERIFIED[key] = signature
    return folder

"""Content digests of files and folders, and their checks: what pins a data source, a model and an artifact's inputs.
The pipeline's provenance reads them as well as the downloads, so they sit below both."""

from __future__ import annotations

import hashlib
from pathlib import Path

from neurips26.common.pipeline.errors import UserError

CHUNK = 1 << 20


def sha256_of(path: str | Path) -> str:
    return digest_of(path, "sha256")


def digest_of(path: str | Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def checksum_mismatch(path: str | Path, sha256: str | None = None, md5: str | None = None) -> str | None:
    """None when every given checksum matches, else a description of the first mismatch ('sha256 <got>, expected ...')."""
    if sha256 is None and md5 is None:
        raise UserError(f"no checksum given for {path}: every real source needs a sha256 or a published md5")
    for algorithm, expected in (("sha256", sha256), ("md5", md5)):
        if expected is not None and (actual := digest_of(path, algorithm)) != expected:
            return f"{algorithm} {actual}, expected {expected}"
    return None


def verify_sha256(path: str | Path, expected: str) -> None:
    """Raise UserError when `path` is missing or its sha256 is not `expected` (a corrupted or truncated file)."""
    verify_checksums(path, sha256=expected)


def verify_checksums(path: str | Path, sha256: str | None = None, md5: str | None = None, hint: str = "") -> None:
    """`hint` ends the error message (where the expected sum comes from, how to re-pin it)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"data file {path} is missing")
    if mismatch := checksum_mismatch(path, sha256, md5):
        raise UserError(f"data file {path} is corrupted: {mismatch}; delete it and fetch again{hint}")


def tree_digest(files: dict[str, Path]) -> str:
    """One sha256 for a folder of files: the sha256 of the sorted lines `relative/path<TAB>sha256 of the file`."""
    lines = "".join(f"{name}\t{sha256_of(path)}\n" for name, path in sorted(files.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def verify_tree_digest(files: dict[str, Path], expected: str, what: str, hint: str = "") -> None:
    """Raise UserError when the tree digest of `files` is not `expected` (a file of `what` changed, appeared or went)."""
    if (actual := tree_digest(files)) != expected:
        raise UserError(f"{what} is corrupted or changed: its files have tree digest {actual}, expected {expected}{hint}")

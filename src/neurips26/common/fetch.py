"""Downloads for `data: real`: atomic (temp file, verify sha256, rename) and never a partial file at the destination."""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from pathlib import Path

from neurips26.common.artifacts import atomic_path
from neurips26.common.errors import UserError

CHUNK = 1 << 20


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verify_sha256(path: str | Path, expected: str) -> None:
    """Raise UserError when `path` is missing or its sha256 is not `expected` (a corrupted or truncated file)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"data file {path} is missing")
    actual = sha256_of(path)
    if actual != expected:
        raise UserError(f"data file {path} is corrupted: sha256 {actual}, expected {expected}; delete it and fetch again")


def download(url: str, dest: str | Path, sha256: str, timeout: float = 60.0) -> Path:
    """Fetch `url` to `dest`; the file appears at `dest` only once complete and verified."""
    dest = Path(dest)
    try:
        with atomic_path(dest) as tmp:
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response, open(tmp, "wb") as out:
                    while chunk := response.read(CHUNK):
                        out.write(chunk)
            except urllib.error.HTTPError as exc:
                raise UserError(f"download of {url} failed: HTTP {exc.code} {exc.reason}") from None
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                raise UserError(f"download of {url} failed: {exc}") from None
            actual = sha256_of(tmp)
            if actual != sha256:
                raise UserError(f"download of {url} is corrupted: sha256 {actual}, expected {sha256}; nothing was kept")
    finally:
        _remove_empty_parents(dest.parent)
    return dest


def _remove_empty_parents(folder: Path) -> None:
    """A failed download leaves no empty folder behind under data/ either."""
    while folder.name and folder.is_dir() and not any(folder.iterdir()) and folder.name != "data":
        folder.rmdir()
        folder = folder.parent

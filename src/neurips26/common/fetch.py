"""Downloads for `data: real`: atomic (temp file, verify the checksum, rename) and never a partial file at the destination.

The checksum is a sha256, or an md5 where a dataset's maintainers publish only that (CIFAR-10/100); the sha256 of every
file is recorded in its provenance either way.
"""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from pathlib import Path

from neurips26.common.artifacts import atomic_path
from neurips26.common.errors import UserError

CHUNK = 1 << 20


def sha256_of(path: str | Path) -> str:
    return _digest(path, hashlib.sha256())


def md5_of(path: str | Path) -> str:
    return _digest(path, hashlib.md5(usedforsecurity=False))


def _digest(path: str | Path, digest) -> str:
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _mismatch(path: str | Path, sha256: str | None, md5: str | None) -> str | None:
    """'sha256 A, expected B' (or md5) when the file does not match; None when it does. One of the two must be given."""
    if not sha256 and not md5:
        raise UserError(f"no checksum (sha256 or md5) is declared for {path}")
    for name, expected, actual_of in (("sha256", sha256, sha256_of), ("md5", md5, md5_of)):
        if expected and (actual := actual_of(path)) != expected:
            return f"{name} {actual}, expected {expected}"
    return None


def verify_checksum(path: str | Path, sha256: str | None = None, md5: str | None = None) -> None:
    """Raise UserError when `path` is missing or does not match its declared sha256 and/or md5."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"data file {path} is missing")
    if problem := _mismatch(path, sha256, md5):
        raise UserError(f"data file {path} is corrupted: {problem}; delete it and fetch again")


def verify_sha256(path: str | Path, expected: str) -> None:
    """Raise UserError when `path` is missing or its sha256 is not `expected` (a corrupted or truncated file)."""
    verify_checksum(path, sha256=expected)


def download(url: str, dest: str | Path, sha256: str | None, timeout: float = 60.0, md5: str | None = None) -> Path:
    """Fetch `url` to `dest`; the file appears at `dest` only once complete and verified (sha256 and/or md5)."""
    dest = Path(dest)
    if not sha256 and not md5:
        raise UserError(f"no checksum (sha256 or md5) is declared for {url}; refusing to download it unverified")
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
            if problem := _mismatch(tmp, sha256, md5):
                raise UserError(f"download of {url} is corrupted: {problem}; nothing was kept")
    finally:
        _remove_empty_parents(dest.parent)
    return dest


def _remove_empty_parents(folder: Path) -> None:
    """A failed download leaves no empty folder behind under data/ either."""
    while folder.name and folder.is_dir() and not any(folder.iterdir()) and folder.name != "data":
        folder.rmdir()
        folder = folder.parent

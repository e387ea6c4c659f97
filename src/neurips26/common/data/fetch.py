"""Downloads for `data: real`: atomic (temp file, verify checksums, rename) and never a partial file at the destination.

A source is checked against a sha256 (registered, or pinned in data/sources.lock by its first fetch) and the md5 its
maintainers publish where there is one (CIFAR, MNIST publish only md5). Only a first fetch, which the caller then pins,
downloads without a checksum: the transport (Content-Length, chunked framing) is then all that catches a cut download."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from pathlib import Path

from neurips26.common.pipeline.artifacts import atomic_path
from neurips26.common.pipeline.digests import checksum_mismatch
from neurips26.common.pipeline.errors import UserError

CHUNK = 1 << 20


def download(url: str, dest: str | Path, sha256: str | None = None, md5: str | None = None,
             timeout: float = 60.0, first_fetch: bool = False, hint: str = "") -> Path:
    """Fetch `url` to `dest`; the file appears at `dest` only once complete and verified. `first_fetch`: the source has no
    checksum yet and the caller pins what arrives, so no checksum is required (any given is still checked)."""
    dest = Path(dest)
    check = not first_fetch or sha256 is not None or md5 is not None
    try:
        with atomic_path(dest) as tmp:
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response, open(tmp, "wb") as out:
                    _copy_complete(response, out, url)
            except urllib.error.HTTPError as exc:
                raise UserError(f"download of {url} failed: HTTP {exc.code} {exc.reason}") from None
            except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException) as exc:
                raise UserError(f"download of {url} failed: {exc}; nothing was kept") from None
            if check and (mismatch := checksum_mismatch(tmp, sha256, md5)):
                raise UserError(f"download of {url} to {dest} is corrupted: {mismatch}; nothing was kept{hint}")
    finally:
        _remove_empty_parents(dest.parent)
    return dest


def _copy_complete(response, out, url: str) -> None:
    """Copy the body, refusing one shorter than its Content-Length: read(n) returns what arrived, with no error, when
    the connection ends early, and a first fetch has no checksum to catch that (cut chunked bodies raise by themselves)."""
    announced, received = response.headers.get("Content-Length"), 0
    while chunk := response.read(CHUNK):
        out.write(chunk)
        received += len(chunk)
    if announced is not None and announced.isdigit() and received != int(announced):
        raise UserError(f"download of {url} failed: the connection ended after {received} of {announced} bytes; "
                        "nothing was kept")


def _remove_empty_parents(folder: Path) -> None:
    """A failed download leaves no empty folder behind under data/ either."""
    while folder.name and folder.is_dir() and not any(folder.iterdir()) and folder.name != "data":
        folder.rmdir()
        folder = folder.parent

"""Atomic artifact writing: every file lands complete (temp file in the same folder, then rename) or not at all."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas costs ~0.5 s per job start; only the CSV helpers load it
    import pandas as pd

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to `path`; rename it onto `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part" + path.suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; artifacts get the usual permissions
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(path: str | Path, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=False) + "\n")


def write_csv(path: str | Path, frame: pd.DataFrame) -> None:
    """CSV with a fixed float format, so the same numbers give byte-identical files."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.10g")


def write_jsonl_gz(path: str | Path, records) -> None:
    """Gzipped JSON lines with no name and no time in the gzip header (GzipFile given a path records that file's name,
    here the temporary one, which differed from run to run), so the same records give byte-identical files."""
    import gzip

    with atomic_path(path) as tmp, open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                                           mtime=0) as handle:
        for record in records:
            handle.write((json.dumps(record) + "\n").encode())


def read_csvs(paths: list[str | Path]) -> pd.DataFrame:
    import pandas as pd

    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


def write_npz(path: str | Path, arrays: dict, compress: bool = True) -> None:
    """An .npz (np.load reads it) with fixed zip timestamps, so the same arrays give byte-identical files.
    compress=False stores the arrays uncompressed (for float data that deflate barely shrinks: faster to write and
    to read)."""
    import zipfile

    import numpy as np

    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with atomic_path(path) as tmp, zipfile.ZipFile(tmp, "w", compression=method) as archive:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            with archive.open(info, "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, np.ascontiguousarray(arrays[name]), allow_pickle=False)


def write_torch(path: str | Path, obj) -> None:
    """torch.save, byte-reproducible: saved through a file handle, so the archive's inner folder is torch's fixed
    `archive/` rather than the name of the random temporary file (which made every rerun a new file to DVC)."""
    import torch

    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        torch.save(obj, handle)

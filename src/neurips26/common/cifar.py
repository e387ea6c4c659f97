"""The official CIFAR-10/100 python archives (data: real), read straight from the tar.gz, never extracted."""

from __future__ import annotations

import pickle
import tarfile
from pathlib import Path

import numpy as np

from neurips26.common.errors import UserError

ARCHIVES = {
    "cifar10": {"archive": "cifar-10-python.tar.gz", "label": b"labels", "classes": 10,
                "train": [f"cifar-10-batches-py/data_batch_{i}" for i in range(1, 6)],
                "test": ["cifar-10-batches-py/test_batch"]},
    "cifar100": {"archive": "cifar-100-python.tar.gz", "label": b"fine_labels", "classes": 100,
                 "train": ["cifar-100-python/train"], "test": ["cifar-100-python/test"]},
}


def read_cifar(folder: str | Path, which: str, split: str, count: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Images (N x 3072 uint8: the red, green and blue planes of 32 x 32, row-major) and int64 labels of one split, in
    the official order; with `count`, only the first `count` (reading no more batches than needed)."""
    spec = ARCHIVES[which]
    path = Path(folder) / spec["archive"]
    if not path.is_file():
        raise UserError(f"{path} is missing; run the data_prepare rule with data: real (snakemake "
                        f"data/raw/{which}/provenance.json --config data=real)")
    images, labels = [], []
    try:
        with tarfile.open(path, "r:gz") as archive:
            for member in spec[split]:
                if count is not None and sum(map(len, labels)) >= count:
                    break
                batch = pickle.load(archive.extractfile(member), encoding="bytes")  # noqa: S301 (checksum-verified)
                images.append(np.asarray(batch[b"data"], dtype=np.uint8))
                labels.append(np.asarray(batch[spec["label"]], dtype=np.int64))
    except (tarfile.TarError, KeyError, OSError, EOFError, pickle.UnpicklingError, ValueError) as exc:
        raise UserError(f"{path}: not a readable {which} python archive ({exc}); delete data/raw/{which} and re-run "
                        "data_prepare") from None
    images, labels = np.concatenate(images)[:count], np.concatenate(labels)[:count]
    if images.ndim != 2 or images.shape[1] != 3072 or len(images) != len(labels) or (count and len(labels) < count):
        raise UserError(f"{path}: expected {count or 'all'} images of 3072 values with labels, got {images.shape}")
    return images, labels

"""The official CIFAR-10/100 python archives (data: real), read straight from the tar.gz, never extracted.

Each batch in the archive is a pickle. `pickle.load` runs whatever callable a pickle names, so a crafted archive (a
mirror, a tampered cache; md5 collisions are cheap) would run code on every machine that reads it. The batches are read
with `CifarUnpickler` instead: the only globals it resolves are the three the official files use to rebuild their numpy
arrays (numpy's _reconstruct, ndarray and dtype); dict, list, bytes, str and int come from plain pickle opcodes. Any other
global is refused before anything is called, with an error naming the archive, the member and the refused class. This is
the project's one use of pickle (tests/unit/test_safe_loading.py scans the sources for any other).
"""

from __future__ import annotations

import pickle
import tarfile
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError

_RECONSTRUCT = np.ndarray.__reduce__(np.zeros(1, np.uint8))[0]  # numpy's _reconstruct, wherever this numpy keeps it
ALLOWED_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,  # as written by the official files (numpy 1.x)
    ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,  # the same function, as numpy 2 names it
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
}


class RefusedGlobal(pickle.UnpicklingError):
    def __init__(self, module: str, name: str):
        super().__init__(f"{module}.{name}")
        self.module, self.name = module, name


class CifarUnpickler(pickle.Unpickler):
    """An unpickler that resolves only ALLOWED_GLOBALS (exact module and name) and no persistent ids."""

    def find_class(self, module: str, name: str):
        try:
            return ALLOWED_GLOBALS[(module, name)]
        except (KeyError, TypeError):
            raise RefusedGlobal(str(module), str(name)) from None

    def persistent_load(self, pid):
        raise pickle.UnpicklingError(f"persistent id {pid!r}")


def load_batch(handle, where: str) -> dict:
    """One CIFAR batch (a dict with bytes keys) from a binary file object; UserError naming `where` for anything that is
    not the official layout, before any refused callable runs."""
    try:
        batch = CifarUnpickler(handle, encoding="bytes").load()
    except RefusedGlobal as exc:
        raise UserError(f"{where}: refused to unpickle: it names {exc.module}.{exc.name}, which no official CIFAR batch "
                        "contains (only numpy's _reconstruct, ndarray and dtype are allowed). The archive is not the "
                        "official one; nothing from it was run or used") from None
    if not isinstance(batch, dict) or not all(isinstance(k, bytes) for k in batch):
        raise UserError(f"{where}: expected a CIFAR batch (a dict with bytes keys), got {type(batch).__name__}")
    data = batch.get(b"data")
    if not isinstance(data, np.ndarray) or data.dtype.hasobject or data.dtype.kind not in "ui":
        raise UserError(f"{where}: the batch's data is not an integer pixel array")
    return batch


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
                handle = archive.extractfile(member)
                if handle is None:
                    raise KeyError(f"{member} is not a file")
                batch = load_batch(handle, f"{path} member {member}")
                images.append(np.asarray(batch[b"data"], dtype=np.uint8))
                labels.append(np.asarray(batch[spec["label"]], dtype=np.int64))
    except (tarfile.TarError, KeyError, OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError,
            AttributeError, IndexError, MemoryError) as exc:
        raise UserError(f"{path}: not a readable {which} python archive ({exc}); delete data/raw/{which} and re-run "
                        "data_prepare") from None
    images, labels = np.concatenate(images)[:count], np.concatenate(labels)[:count]
    if images.ndim != 2 or images.shape[1] != 3072 or len(images) != len(labels) or (count and len(labels) < count):
        raise UserError(f"{path}: expected {count or 'all'} images of 3072 values with labels, got {images.shape}")
    return images, labels

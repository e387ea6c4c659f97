"""Long-tailed image tasks with a balanced test set.

data: embedded: Debian's full Fashion-MNIST (28x28, average-pooled to 14x14 for CPU speed; the official balanced test
set) and scikit-learn's 8x8 digits (a stratified split drawn from the run seed's `digits_split` stream:
`digits_test_per_class` images of every class held out as the balanced test set, the rest the training pool).
data: real (paper scale): CIFAR-10 / CIFAR-100 python archives (md5-checked by data_prepare; 32x32x3).

The long-tailed training set keeps n_k = floor(n_max * ratio^(-k / (K - 1))) images of class k (class 0 the head,
Cao et al. 2019's exponential profile), drawn per seed from the class's pool. Head / medium / tail classes: the first
30 %, the middle 40 % and the last 30 % of the classes by count rank (3 / 4 / 3 for K = 10).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng as seed_stream

DATASETS = {"fashion_mnist": "fashion_mnist", "digits": "digits", "cifar10": "cifar10", "cifar100": "cifar100"}


@dataclass
class Task:
    x_pool: np.ndarray  # (n, C, H, W) float32, standardised with the pool's mean and std
    y_pool: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: int


def _pool2(images: np.ndarray) -> np.ndarray:
    n, h, w = images.shape
    return images.reshape(n, h // 2, 2, w // 2, 2).mean(axis=(2, 4))


def _standardise(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, std = float(train.mean(dtype=np.float64)), float(train.std(dtype=np.float64)) or 1.0
    return ((train - mean) / std).astype(np.float32), ((test - mean) / std).astype(np.float32)


def load_task(name: str, folder: str | Path, cfg, seed: int) -> Task:
    """The training pool and the balanced test set of one dataset, as (n, C, H, W) float32. The digits split is drawn
    from the run seed (stream `digits_split`); Fashion-MNIST and CIFAR keep their official train / test sets."""
    if name == "fashion_mnist":
        from neurips26.common.data.fashion_mnist import load_fashion

        xtr, ytr, xte, yte = load_fashion(Path(folder))
        xtr, xte = xtr.astype(np.float32) / 255.0, xte.astype(np.float32) / 255.0
        if bool(cfg.fashion_pool2):
            xtr, xte = _pool2(xtr), _pool2(xte)
        xtr, xte = xtr[:, None], xte[:, None]
        classes = 10
    elif name == "digits":
        from neurips26.common.data.digits import read_digits

        pixels, labels = read_digits(folder)
        order = seed_stream(seed, "digits_split").permutation(len(labels))
        per = int(cfg.digits_test_per_class)
        test = np.concatenate([order[labels[order] == c][:per] for c in range(10)])
        train = np.setdiff1d(np.arange(len(labels)), test)
        xtr, ytr = pixels[train].reshape(-1, 1, 8, 8) / 16.0, labels[train]
        xte, yte = pixels[test].reshape(-1, 1, 8, 8) / 16.0, labels[test]
        classes = 10
    elif name in ("cifar10", "cifar100"):
        from neurips26.common.data.cifar import ARCHIVES, read_cifar

        xtr, ytr = read_cifar(folder, name, "train")
        xte, yte = read_cifar(folder, name, "test")
        xtr = xtr.reshape(-1, 3, 32, 32).astype(np.float32) / 255.0
        xte = xte.reshape(-1, 3, 32, 32).astype(np.float32) / 255.0
        classes = ARCHIVES[name]["classes"]
    else:
        raise UserError(f"mixup_minority: unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    xtr, xte = _standardise(xtr, xte)
    return Task(xtr, np.asarray(ytr, dtype=np.int64), xte, np.asarray(yte, dtype=np.int64), classes)


def long_tailed_counts(classes: int, n_max: int, ratio: float) -> np.ndarray:
    """n_k = floor(n_max * ratio^(-k / (K - 1))), at least 1."""
    k = np.arange(classes)
    return np.maximum(np.floor(n_max * float(ratio) ** (-k / (classes - 1)) + 1e-9), 1).astype(np.int64)


def long_tailed_indices(labels: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per class, counts[k] distinct pool indices drawn without replacement."""
    chosen = []
    for c, n in enumerate(counts):
        members = np.flatnonzero(labels == c)
        if len(members) < n:
            raise UserError(f"mixup_minority: class {c} has {len(members)} pool images, the long tail needs {n}")
        chosen.append(rng.choice(members, size=int(n), replace=False))
    return np.sort(np.concatenate(chosen))


def balanced_test(labels: np.ndarray, per_class: int, rng: np.random.Generator) -> np.ndarray:
    """per_class test images of every class (all of them when per_class <= 0 or the class has fewer)."""
    out = []
    for c in np.unique(labels):
        members = np.flatnonzero(labels == c)
        out.append(members if per_class <= 0 or per_class >= len(members)
                   else rng.choice(members, size=per_class, replace=False))
    return np.sort(np.concatenate(out))


def class_groups(classes: int) -> dict[str, np.ndarray]:
    """Head / medium / tail classes by count rank (class 0 the most frequent)."""
    head = int(round(0.3 * classes))
    tail = int(round(0.3 * classes))
    return {"head": np.arange(head), "medium": np.arange(head, classes - tail),
            "tail": np.arange(classes - tail, classes)}

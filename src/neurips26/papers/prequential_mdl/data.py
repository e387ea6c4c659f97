"""The two image tasks: Fashion-MNIST (10 classes, the CIFAR-10 stand-in) and side-by-side MNIST digit pairs
(100 classes, the CIFAR-100 stand-in), subsampled per seed, with nested symmetric label noise.

The data_prepare rule copies the source files (sha256-checked) to data/raw/<dataset>/; the run stages read them there.
Random streams are keyed by (seed, purpose), so the examples a seed draws do not depend on the width or the noise level:
runs of one seed differ only in what the sweep changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf

from neurips26.common.data.cifar import ARCHIVES, read_cifar
from neurips26.common.data.fashion_mnist import load_fashion
from neurips26.common.data.mnist_csv import read_mnist_csv
from neurips26.common.pipeline.errors import UserError

STREAMS = {"data": 1, "noise": 2, "test_noise": 3}


@dataclass
class Task:
    """Inputs as float32 rows, clean labels, and the per-example noise draws (uniform u, random class r)."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: int
    noise_u: np.ndarray
    noise_class: np.ndarray
    test_noise_u: np.ndarray
    test_noise_class: np.ndarray

    def train(self, n: int, noise: float) -> tuple[np.ndarray, np.ndarray]:
        """The first n training examples, each label replaced by its random class where u < noise (nested in n, p)."""
        if n > len(self.y_train):
            raise UserError(f"sweep asks for n={n} training examples, the task has {len(self.y_train)}")
        labels = np.where(self.noise_u[:n] < noise, self.noise_class[:n], self.y_train[:n])
        return self.x_train[:n], labels

    def test(self, noise: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Test inputs, labels with the training noise (same distribution), and clean labels."""
        noisy = np.where(self.test_noise_u < noise, self.test_noise_class, self.y_test)
        return self.x_test, noisy, self.y_test


def rng(seed: int, purpose: str) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, STREAMS[purpose]]))


def pool_images(images: np.ndarray, factor: int) -> np.ndarray:
    """Average-pool N x H x W uint8 images by `factor` and scale to [0, 1] (float32, N x H/f x W/f)."""
    n, h, w = images.shape
    if h % factor or w % factor:
        raise UserError(f"images of {h}x{w} pixels cannot be pooled by {factor}")
    pooled = images.reshape(n, h // factor, factor, w // factor, factor).mean(axis=(2, 4))
    return (pooled / 255.0).astype(np.float32)


def load_mnist_5k(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    images, labels = read_mnist_csv(folder)
    return images.reshape(-1, 28, 28), labels


def with_noise_draws(x_tr, y_tr, x_te, y_te, classes: int, seed: int) -> Task:
    noise, test_noise = rng(seed, "noise"), rng(seed, "test_noise")
    return Task(x_tr, y_tr.astype(np.int64), x_te, y_te.astype(np.int64), classes,
                noise.random(len(y_tr)), noise.integers(0, classes, len(y_tr)),
                test_noise.random(len(y_te)), test_noise.integers(0, classes, len(y_te)))


def fashion_task(folder: Path, n_train: int, n_test: int, pool: int, seed: int) -> Task:
    """n_train training images (a seeded subsample of the 60k) and n_test test images (of the 10k t10k images)."""
    tr_x, tr_y, te_x, te_y = load_fashion(folder)
    if n_train > len(tr_y) or n_test > len(te_y):
        raise UserError(f"Fashion-MNIST has {len(tr_y)} training and {len(te_y)} test images; asked for "
                        f"{n_train} and {n_test}")
    r = rng(seed, "data")
    tr, te = r.permutation(len(tr_y))[:n_train], r.permutation(len(te_y))[:n_test]
    flat = lambda images: pool_images(images, pool).reshape(len(images), -1)  # noqa: E731
    return with_noise_draws(flat(tr_x[tr]), tr_y[tr], flat(te_x[te]), te_y[te], 10, seed)


def digit_pairs(images: np.ndarray, labels: np.ndarray, count: int, r: np.random.Generator):
    """`count` pairs of images drawn uniformly with replacement, side by side; class = 10 * left + right."""
    left, right = r.integers(0, len(labels), count), r.integers(0, len(labels), count)
    x = np.concatenate([images[left], images[right]], axis=2)
    return x.reshape(count, -1), 10 * labels[left] + labels[right]


def pairs_task(folder: Path, n_train: int, n_test: int, test_pool: int, pool: int, seed: int) -> Task:
    """Training pairs from one pool of MNIST images and test pairs from a disjoint pool (no digit image is shared)."""
    images, labels = load_mnist_5k(folder)
    if test_pool >= len(labels):
        raise UserError(f"test_pool={test_pool} leaves no training images out of {len(labels)}")
    r = rng(seed, "data")
    order = r.permutation(len(labels))
    pooled = pool_images(images, pool)
    test_ids, train_ids = order[:test_pool], order[test_pool:]
    x_tr, y_tr = digit_pairs(pooled[train_ids], labels[train_ids], n_train, r)
    x_te, y_te = digit_pairs(pooled[test_ids], labels[test_ids], n_test, r)
    return with_noise_draws(x_tr, y_tr, x_te, y_te, 100, seed)


def load_cifar(folder: Path, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Train and test images (N x 3 x 32 x 32 uint8) and labels from the official python archive."""
    (tr_x, tr_y), (te_x, te_y) = (read_cifar(folder, which, split) for split in ("train", "test"))
    return tr_x.reshape(-1, 3, 32, 32), tr_y, te_x.reshape(-1, 3, 32, 32), te_y


def cifar_task(folder: Path, which: str, n_train: int, n_test: int, pool: int, seed: int) -> Task:
    """A seeded subsample of the CIFAR training and test images, each colour plane average-pooled by `pool`."""
    tr_x, tr_y, te_x, te_y = load_cifar(folder, which)
    if n_train > len(tr_y) or n_test > len(te_y):
        raise UserError(f"{which} has {len(tr_y)} training and {len(te_y)} test images; asked for {n_train} and {n_test}")
    r = rng(seed, "data")
    tr, te = r.permutation(len(tr_y))[:n_train], r.permutation(len(te_y))[:n_test]
    flat = lambda im: pool_images(im.reshape(-1, 32, 32), pool).reshape(len(im), -1)  # noqa: E731
    return with_noise_draws(flat(tr_x[tr]), tr_y[tr], flat(te_x[te]), te_y[te], ARCHIVES[which]["classes"], seed)


def control_task(classes: int, n: int, n_test: int, signal: float, id_scale: float, seed: int) -> Task:
    """The positive control: regret and noisy-label test error tied together by construction. An input is its clean
    class as `signal` * one-hot(y) followed by `id_scale` * one-hot(i), a coordinate of its own for every training
    example (test inputs have none). A linear student learns the class rule within the first epoch and can memorise
    any relabelling through the per-example coordinates, which are zero-initialised and so say nothing about an
    example before it has been trained on. With label noise p the noisy labels are the only bits the online code cannot
    predict (L_preq / n rises with p) and L_fin -> 0 at interpolation, while the test inputs are classified by the
    clean rule, so the noisy-label test error is p (1 - 1/C) up to sampling: both rise with p."""
    r = rng(seed, "data")
    y_tr, y_te = r.integers(0, classes, n), r.integers(0, classes, n_test)
    x_tr = np.concatenate([signal * np.eye(classes)[y_tr], id_scale * np.eye(n)], axis=1).astype(np.float32)
    x_te = np.concatenate([signal * np.eye(classes)[y_te], np.zeros((n_test, n))], axis=1).astype(np.float32)
    return with_noise_draws(x_tr, y_tr, x_te, y_te, classes, seed)


def task_config(cfg, name: str):
    """The configuration a task's runs use: the shared one with the task's own `design` (pool, sweep, model, train)
    merged over it. A task whose stand-in needs another network or budget to reach the regime says so there."""
    design = cfg.tasks[name].get("design")
    return OmegaConf.merge(cfg, design) if design else cfg


def dataset_of(cfg, name: str) -> str:
    """The dataset a task slot reads: the embedded stand-in, or with data: real the CIFAR set it stands in for."""
    spec = cfg.tasks[name]
    return str(spec.real_dataset if cfg.data == "real" else spec.dataset)


def load_task(name: str, cfg, folder: Path, seed: int) -> Task:
    spec = cfg.tasks[name]
    n_max = max(int(n) for n in cfg.sweep.n)
    if cfg.data == "real":
        return cifar_task(folder, str(spec.real_dataset), n_max, int(cfg.n_test), int(cfg.pool), seed)
    if name == "c10proxy":
        return fashion_task(folder, n_max, int(cfg.n_test), int(cfg.pool), seed)
    if name == "c100proxy":
        return pairs_task(folder, n_max, int(cfg.n_test), int(spec.test_pool), int(cfg.pool), seed)
    raise UserError(f"unknown task {name!r}; known: {', '.join(cfg.tasks)}")

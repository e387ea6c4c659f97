"""The images, prepared by the `data_prepare` rule under data/raw/<dataset>/.

data: embedded: scikit-learn's 8x8 digits (1,797 real handwritten digits shipped inside the scikit-learn wheel, sha256-
checked); a fixed class-stratified split (independent of the run seed) of n_train training images and a probe set of
held-out images for the NTK. data: real: Cohen et al.'s protocol, the first `cifar10.n_train` images of the CIFAR-10
training set (official archive, md5-checked) and the next `probe_size` as the probe. Inputs are standardised per pixel
and channel with training statistics (Cohen et al.'s center + standardize); targets are one-hot (square loss)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.cifar import read_cifar
from neurips26.common.digits import DIGITS_FILE, read_digits  # noqa: F401 (DIGITS_FILE: re-exported for the tests)
from neurips26.common.errors import UserError

N_CLASSES = 10


@dataclass(frozen=True)
class Split:
    x_train: np.ndarray  # (n_train, channels * side * side) float32, standardised
    y_train: np.ndarray  # (n_train,) int64 labels
    x_probe: np.ndarray  # (probe_size, channels * side * side) held-out inputs for the NTK
    shape: tuple[int, int, int] = (1, 8, 8)  # (channels, side, side) of one image, for the CNN


def stratified_order(labels: np.ndarray, split_seed: int) -> np.ndarray:
    """A seeded permutation with the classes interleaved, so that any prefix is balanced."""
    order = np.random.default_rng(split_seed).permutation(len(labels))
    by_class = [order[labels[order] == c] for c in range(N_CLASSES)]
    return np.array([i for group in zip(*by_class) for i in group] +
                    [i for g in by_class for i in g[min(map(len, by_class)):]])


def standardised_split(pixels: np.ndarray, labels: np.ndarray, train: np.ndarray, probe: np.ndarray,
                       shape: tuple[int, int, int]) -> Split:
    mean = pixels[train].mean(0)
    std = pixels[train].std(0)
    std[std == 0] = 1.0
    scale = lambda idx: ((pixels[idx] - mean) / std).astype(np.float32)  # noqa: E731
    return Split(scale(train), labels[train], scale(probe), shape)


def make_split(pixels: np.ndarray, labels: np.ndarray, n_train: int, probe_size: int, split_seed: int) -> Split:
    if n_train + probe_size > len(labels):
        raise UserError(f"wd_eos: n_train + probe_size = {n_train + probe_size} exceeds the {len(labels)} digits")
    order = stratified_order(labels, split_seed)
    return standardised_split(pixels, labels, order[:n_train], order[n_train:n_train + probe_size], (1, 8, 8))


def load_split(raw_dir: str | Path, cfg) -> Split:
    if cfg.data == "real":
        n_train, probe_size = int(cfg.cifar10.n_train), int(cfg.probe_size)
        pixels, labels = read_cifar(raw_dir, "cifar10", "train", count=n_train + probe_size)
        pixels = pixels.astype(np.float64)
        return standardised_split(pixels, labels, np.arange(n_train), np.arange(n_train, n_train + probe_size),
                                  (3, 32, 32))
    pixels, labels = read_digits(raw_dir)
    return make_split(pixels, labels, int(cfg.n_train), int(cfg.probe_size), int(cfg.split_seed))

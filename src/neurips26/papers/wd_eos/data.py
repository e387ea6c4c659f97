"""The images, prepared by the `data_prepare` rule under data/raw/<dataset>/.

data: embedded: scikit-learn's 8x8 digits (1,797 real handwritten digits shipped inside the scikit-learn wheel, sha256-
checked); a class-stratified split of n_train training images and a probe set of held-out images for the NTK, drawn
from the run's seed (seed stream "split", pipeline/seed_streams; contract v2: each random choice follows the run
seed). data: real: Cohen et al.'s protocol, the first `cifar10.n_train` images of the CIFAR-10
training set (official archive, md5-checked) and the next `probe_size` as the probe (the published protocol: not
drawn). Inputs are standardised per pixel
and channel with training statistics (Cohen et al.'s center + standardize); targets are one-hot (square loss)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.data.cifar import read_cifar
from neurips26.common.data.digits import DIGITS_FILE, read_digits  # noqa: F401 (DIGITS_FILE: re-exported for the tests)
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng as seed_stream

N_CLASSES = 10


@dataclass(frozen=True)
class Split:
    x_train: np.ndarray  # (n_train, channels * side * side) float32, standardised
    y_train: np.ndarray  # (n_train,) int64 labels
    x_probe: np.ndarray  # (probe_size, channels * side * side) held-out inputs for the NTK
    shape: tuple[int, int, int] = (1, 8, 8)  # (channels, side, side) of one image, for the CNN


def stratified_order(labels: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """A random permutation (from `generator`) with the classes interleaved, so that any prefix is balanced."""
    order = generator.permutation(len(labels))
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


def make_split(pixels: np.ndarray, labels: np.ndarray, n_train: int, probe_size: int, seed: int) -> Split:
    """The training subset and the probe set of the run with this seed (its "split" stream)."""
    if n_train + probe_size > len(labels):
        raise UserError(f"wd_eos: n_train + probe_size = {n_train + probe_size} exceeds the {len(labels)} digits")
    order = stratified_order(labels, seed_stream(seed, "split"))
    return standardised_split(pixels, labels, order[:n_train], order[n_train:n_train + probe_size], (1, 8, 8))


def load_split(raw_dir: str | Path, cfg, seed: int | None = None) -> Split:
    """The run's data: the run's `seed` draws the digits split (required there); data: real takes CIFAR-10's published
    first images, whatever the seed."""
    if cfg.data == "real":
        n_train, probe_size = int(cfg.cifar10.n_train), int(cfg.probe_size)
        pixels, labels = read_cifar(raw_dir, "cifar10", "train", count=n_train + probe_size)
        pixels = pixels.astype(np.float64)
        return standardised_split(pixels, labels, np.arange(n_train), np.arange(n_train, n_train + probe_size),
                                  (3, 32, 32))
    if seed is None:
        raise UserError("wd_eos: the digits split is drawn from the run's seed; load_split needs seed=")
    pixels, labels = read_digits(raw_dir)
    return make_split(pixels, labels, int(cfg.n_train), int(cfg.probe_size), int(seed))

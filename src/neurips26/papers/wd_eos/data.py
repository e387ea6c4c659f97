"""The images, prepared by the `data_prepare` rule under data/raw/<dataset>/.

data: embedded: scikit-learn's 8x8 digits (1,797 real handwritten digits shipped inside the scikit-learn wheel, sha256-
checked); a fixed class-stratified split (independent of the run seed) of n_train training images and a probe set of
held-out images for the NTK. data: real: Cohen et al.'s protocol, the first `cifar10.n_train` images of the CIFAR-10
training set (official archive, md5-checked) and the next `probe_size` as the probe. Inputs are standardised per pixel
and channel with training statistics (Cohen et al.'s center + standardize); targets are one-hot (square loss)."""

from __future__ import annotations

import gzip
import pickle
import tarfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.errors import UserError

DIGITS_FILE = "digits.csv.gz"
CIFAR_FILE = "cifar-10-python.tar.gz"
CIFAR_BATCHES = [f"cifar-10-batches-py/data_batch_{i}" for i in range(1, 6)]  # the training set, in its official order
N_CLASSES = 10


@dataclass(frozen=True)
class Split:
    x_train: np.ndarray  # (n_train, channels * side * side) float32, standardised
    y_train: np.ndarray  # (n_train,) int64 labels
    x_probe: np.ndarray  # (probe_size, channels * side * side) held-out inputs for the NTK
    shape: tuple[int, int, int] = (1, 8, 8)  # (channels, side, side) of one image, for the CNN


def read_digits(raw_dir: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Pixels (n, 64) in [0, 16] and labels (n,) from the copied scikit-learn file; a clear error if it is broken."""
    path = Path(raw_dir) / DIGITS_FILE
    if not path.is_file():
        raise UserError(f"{path} is missing: run `snakemake data/raw/digits/provenance.json` (rule data_prepare) first")
    try:
        with gzip.open(path, "rt") as handle:
            table = np.loadtxt(handle, delimiter=",", dtype=np.float64)
    except (OSError, EOFError, ValueError) as exc:
        raise UserError(f"{path} is corrupted or truncated ({exc}); delete data/raw/digits and re-run "
                        "data_prepare") from None
    if table.ndim != 2 or table.shape[1] != 65:
        raise UserError(f"{path}: expected rows of 64 pixels + 1 label, got shape {table.shape}")
    return table[:, :64], table[:, 64].astype(np.int64)


def read_cifar10_train(raw_dir: str | Path, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The first `count` CIFAR-10 training images (n, 3072: 1024 red, green, blue values, row-major) and labels."""
    path = Path(raw_dir) / CIFAR_FILE
    if not path.is_file():
        raise UserError(f"{path} is missing: run `snakemake data/raw/cifar10/provenance.json --config data=real` first")
    pixels, labels = [], []
    try:
        with tarfile.open(path, "r:gz") as archive:
            for member in CIFAR_BATCHES:
                if sum(map(len, labels)) >= count:
                    break
                batch = pickle.load(archive.extractfile(member), encoding="bytes")  # noqa: S301 (md5-verified file)
                pixels.append(np.asarray(batch[b"data"], dtype=np.uint8))
                labels.append(np.asarray(batch[b"labels"], dtype=np.int64))
    except (OSError, EOFError, KeyError, tarfile.TarError, pickle.UnpicklingError) as exc:
        raise UserError(f"{path} is corrupted or not the CIFAR-10 python archive ({exc}); delete data/raw/cifar10 and "
                        "re-run data_prepare") from None
    pixels, labels = np.concatenate(pixels)[:count], np.concatenate(labels)[:count]
    if len(labels) < count or pixels.shape[1] != 3072:
        raise UserError(f"{path}: expected {count} images of 3072 values, got {pixels.shape}")
    return pixels.astype(np.float64), labels


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
        pixels, labels = read_cifar10_train(raw_dir, n_train + probe_size)
        return standardised_split(pixels, labels, np.arange(n_train), np.arange(n_train, n_train + probe_size),
                                  (3, 32, 32))
    pixels, labels = read_digits(raw_dir)
    return make_split(pixels, labels, int(cfg.n_train), int(cfg.probe_size), int(cfg.split_seed))

"""scikit-learn's 8x8 digits (1,797 real handwritten digits, shipped inside the scikit-learn wheel), copied by the
`data_prepare` rule into data/raw/digits/ with a sha256 check. A fixed, class-stratified split (independent of the run
seed): n_train training images, and a probe set of held-out images for the NTK. Inputs are standardised with training
statistics; targets are one-hot (square loss, as in Cohen et al. 2021)."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.errors import UserError

DIGITS_FILE = "digits.csv.gz"
N_CLASSES = 10


@dataclass(frozen=True)
class Split:
    x_train: np.ndarray  # (n_train, 64) float32, standardised
    y_train: np.ndarray  # (n_train,) int64 labels
    x_probe: np.ndarray  # (probe_size, 64) held-out inputs for the NTK


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


def make_split(pixels: np.ndarray, labels: np.ndarray, n_train: int, probe_size: int, split_seed: int) -> Split:
    if n_train + probe_size > len(labels):
        raise UserError(f"wd_eos: n_train + probe_size = {n_train + probe_size} exceeds the {len(labels)} digits")
    rng = np.random.default_rng(split_seed)
    order = rng.permutation(len(labels))
    # stratified: interleave classes so any prefix is balanced
    by_class = [order[labels[order] == c] for c in range(N_CLASSES)]
    interleaved = np.array([i for group in zip(*by_class) for i in group] +
                           [i for g in by_class for i in g[min(map(len, by_class)):]])
    train, probe = interleaved[:n_train], interleaved[n_train:n_train + probe_size]
    mean = pixels[train].mean(0)
    std = pixels[train].std(0)
    std[std == 0] = 1.0
    scale = lambda idx: ((pixels[idx] - mean) / std).astype(np.float32)  # noqa: E731
    return Split(scale(train), labels[train], scale(probe))


def load_split(raw_dir: str | Path, cfg) -> Split:
    pixels, labels = read_digits(raw_dir)
    return make_split(pixels, labels, int(cfg.n_train), int(cfg.probe_size), int(cfg.split_seed))

"""scikit-learn's 8x8 digits as the data_prepare rule copies them to data/raw/digits/ (sha256-checked): 1,797 rows of 64
pixels in [0, 16] and a label. Shared by wd_eos and mixup_minority."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError

DIGITS_FILE = "digits.csv.gz"


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

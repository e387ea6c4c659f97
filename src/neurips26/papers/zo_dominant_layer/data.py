"""The classification tasks, from the bundled corpora (IMDB sentiment, BBC News topics, MMLU subjects), as short
prompts scored by label-word logits: "<Name>: <first words of the text>\n<Suffix>" -> " <label word>".

Every run splits each task by its own seed (seed stream "split") into a training pool (minibatches) and a held-out
set, so a different seed set re-draws the prompts (issue #51). Texts are cut to their first `max_words` words: the
model's compute grows with the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.data.text_corpora import load_bbc, load_imdb, load_mmlu
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng as seed_stream

DATASETS = {"imdb": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc", "mmlu_subject": "ensemble_mi_mmlu"}
FORMAT = {"imdb": ("Review", "Sentiment:"), "bbc": ("Article", "Topic:"), "mmlu_subject": ("Question", "Subject:")}


@dataclass
class Task:
    name: str
    words: list[str]          # label words, in label order
    prompts: list[str]        # train then held-out
    y: np.ndarray
    n_train: int

    @property
    def n_classes(self) -> int:
        return len(self.words)


def _read(name: str, folder: Path, spec) -> tuple[list[str], list[str], np.ndarray]:
    if name == "imdb":
        words, split = load_imdb(folder)
        return words, split.texts, split.y
    if name == "bbc":
        words, split = load_bbc(folder)
        return list(spec.words), split.texts, split.y
    if name == "mmlu_subject":
        _, split = load_mmlu(folder)
        subjects = dict(spec.subjects)  # MMLU topic -> label word
        keep = [i for i, t in enumerate(split.topics) if t in subjects]
        if len({split.topics[i] for i in keep}) != len(subjects):
            raise UserError(f"{folder}: MMLU lacks some of the subjects {sorted(subjects)}")
        order = list(subjects)
        return list(subjects.values()), [split.texts[i] for i in keep], np.array(
            [order.index(split.topics[i]) for i in keep], dtype=np.int64)
    raise UserError(f"unknown zo_dominant_layer task {name!r}; known: {', '.join(DATASETS)}")


def prompt(name: str, text: str, max_words: int) -> str:
    head, suffix = FORMAT[name]
    return f"{head}: {' '.join(text.split()[:max_words])}\n{suffix}"


def load_task(name: str, folder: Path, cfg, seed: int) -> Task:
    """Balanced train and held-out sets of cfg.tasks sizes, drawn from the run's seed (stream "split")."""
    spec = cfg.tasks.get(name, {})
    words, texts, y = _read(name, folder, spec)
    rng = seed_stream(seed, "split")
    n_train, n_eval = int(cfg.tasks.n_train), int(cfg.tasks.n_eval)
    k = len(words)
    picks = []
    for label in range(k):  # balanced: the same number per class in each split
        pool = rng.permutation(np.flatnonzero(y == label))
        need = n_train // k + n_eval // k
        if len(pool) < need:
            raise UserError(f"task {name}: class {words[label]!r} has {len(pool)} texts, needs {need}")
        picks.append(pool[:need])
    train = np.concatenate([p[: n_train // k] for p in picks])
    held = np.concatenate([p[n_train // k:] for p in picks])
    train, held = rng.permutation(train), rng.permutation(held)
    index = np.concatenate([train, held])
    max_words = int(cfg.tasks.max_words)
    return Task(name, words, [prompt(name, texts[i], max_words) for i in index], y[index], len(train))

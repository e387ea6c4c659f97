"""The classification tasks, from the bundled corpora (IMDB sentiment, BBC News topics, MMLU subjects), as short
prompts scored by label-word logits: "<Name>: <first words of the text>\n<Suffix>" -> " <label word>".

Every run splits each task by its own seed (seed stream "split") into a training pool (minibatches), a dev set (lr
grid, best checkpoint, the probe) and a test set (accuracy), so a different seed set re-draws the prompts (issue #51).
Texts are cut to their first `max_words` words: the model's compute grows with the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.data.text_corpora import load_bbc, load_imdb, load_mmlu
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng as seed_stream
from neurips26.papers.zo_dominant_layer import mezo_tasks

# task -> config/datasets.yaml id: the embedded tasks, and MeZO's (data: real, mezo_tasks.py)
DATASETS = {"imdb": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc", "mmlu_subject": "ensemble_mi_mmlu",
            **{name: spec[1] for name, spec in mezo_tasks.TASKS.items()}}
FORMAT = {"imdb": ("Review", "Sentiment:"), "bbc": ("Article", "Topic:"), "mmlu_subject": ("Question", "Subject:")}


@dataclass
class Task:
    name: str
    words: list[str]          # label words, in label order
    prompts: list[str]        # train, then dev, then test
    y: np.ndarray
    n_train: int
    n_dev: int

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


def task_names(cfg) -> list[str]:
    """The tasks of a run: tasks.names on the embedded data, tasks.real_names (MeZO's, mezo_tasks.py) with data: real."""
    real = str(cfg.get("data", "embedded")) == "real"
    names = list(cfg.tasks.real_names if real else cfg.tasks.names)
    wrong = [n for n in names if (n in mezo_tasks.TASKS) != real]
    if wrong:
        raise UserError(f"zo_dominant_layer tasks {wrong} have no {'real' if real else 'embedded'} source")
    return names


def load_task(name: str, folder: Path, cfg, seed: int) -> Task:
    """Balanced, disjoint train, dev and test sets of cfg.tasks sizes, drawn from the run's seed (stream "split");
    MeZO's tasks (data: real) as MeZO samples them (mezo_tasks.py)."""
    if name in mezo_tasks.TASKS:
        return Task(name, *mezo_tasks.load_task(name, folder, cfg, seed))
    spec = cfg.tasks.get(name, {})
    words, texts, y = _read(name, folder, spec)
    rng = seed_stream(seed, "split")
    k = len(words)
    sizes = [int(cfg.tasks.n_train) // k, int(cfg.tasks.n_dev) // k, int(cfg.tasks.n_test) // k]
    parts = [[], [], []]
    for label in range(k):  # balanced: the same number per class in each split
        pool = rng.permutation(np.flatnonzero(y == label))
        if len(pool) < sum(sizes):
            raise UserError(f"task {name}: class {words[label]!r} has {len(pool)} texts, needs {sum(sizes)}")
        edges = np.cumsum([0, *sizes])
        for i in range(3):
            parts[i].append(pool[edges[i]:edges[i + 1]])
    train, dev, test = (rng.permutation(np.concatenate(p)) for p in parts)
    index = np.concatenate([train, dev, test])
    max_words = int(cfg.tasks.max_words)
    return Task(name, words, [prompt(name, texts[i], max_words) for i in index], y[index], len(train), len(dev))

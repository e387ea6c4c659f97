"""MeZO's classification tasks on the real data (`data: real`): SST-2, RTE and BoolQ from the hub's parquet files
(config/datasets.yaml: mezo_glue, mezo_boolq), in MeZO's prompt templates and with its sampling.

Templates and verbalizers are those of MeZO's large_models/templates.py (princeton-nlp/MeZO, read there): SST-2
"<sentence> It was" -> terrible / great; RTE (PromptSource) "<premise>\\nDoes this mean that "<hypothesis>" is true?
Yes or No?\\n" -> Yes / No (label 0 is entailment); BoolQ (its default, version 2: passage, the question capitalised
with a "?", a newline) -> Yes / No. Sampling as MeZO's run.py: n_train and then n_dev examples drawn from the training
split, n_test from the validation split (all of it when smaller; the test labels of GLUE and BoolQ are not public).
Deviation: MeZO scores each verbalizer by its log-likelihood after the prompt; this paper's runner scores the first
token of " <word>" (the same for these one-word verbalizers up to the leading space).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng as seed_stream


def _sst2(row) -> str:
    return f"{str(row.sentence).strip()} It was"


def _rte(row) -> str:
    return f'{row.sentence1}\nDoes this mean that "{row.sentence2}" is true? Yes or No?\n'


def _boolq(row) -> str:
    question = str(row.question)
    question = question if question.endswith("?") else question + "?"
    return f"{row.passage} {question[0].upper() + question[1:]}\n"


# task -> (file prefix, dataset id, template, verbalizer words in label order, label column -> label index)
TASKS = {
    "sst2": ("sst2", "mezo_glue", _sst2, ["terrible", "great"], lambda f: f.label.to_numpy(dtype=np.int64)),
    "rte": ("rte", "mezo_glue", _rte, ["Yes", "No"], lambda f: f.label.to_numpy(dtype=np.int64)),
    "boolq": ("boolq", "mezo_boolq", _boolq, ["Yes", "No"], lambda f: np.where(f.answer.astype(bool), 0, 1)),
}


def _split(folder: Path, name: str, split: str) -> tuple[list[str], np.ndarray]:
    prefix, dataset_id, template, words, labels = TASKS[name]
    path = folder / f"{prefix}_{split}.parquet"
    if not path.is_file():
        raise UserError(f"{path} is missing: run the data_prepare rule for {dataset_id} with data: real")
    frame = pd.read_parquet(path)
    y = labels(frame)
    if y.size and (y.min() < 0 or y.max() >= len(words)):
        raise UserError(f"{path}: labels outside 0..{len(words) - 1} (an unlabelled split?)")
    return [template(row) for row in frame.itertuples(index=False)], y


def load_task(name: str, folder: Path, cfg, seed: int):
    """(words, prompts of train + dev + test, labels, n_train, n_dev): MeZO's sampling, drawn by the run seed."""
    if name not in TASKS:
        raise UserError(f"unknown MeZO task {name!r}; known: {', '.join(TASKS)}")
    words = TASKS[name][3]
    train_prompts, train_y = _split(folder, name, "train")
    test_prompts, test_y = _split(folder, name, "validation")
    n_train, n_dev, n_test = int(cfg.tasks.n_train), int(cfg.tasks.n_dev), int(cfg.tasks.n_test)
    if len(train_y) < n_train + n_dev:
        raise UserError(f"task {name}: the training split has {len(train_y)} examples, needs {n_train + n_dev}")
    rng = seed_stream(seed, "split")
    fit = rng.permutation(len(train_y))[: n_train + n_dev]
    test = rng.permutation(len(test_y))[:n_test]
    prompts = [train_prompts[i] for i in fit] + [test_prompts[i] for i in test]
    return words, prompts, np.concatenate([train_y[fit], test_y[test]]), n_train, n_dev

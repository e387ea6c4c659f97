"""ensemble_mi's real tasks (issue #52): the hub's parquet files of IMDB, AG News, MMLU and MedMCQA in their own columns
and file paths, fetched from an offline huggingface_hub cache built here (never the internet) through the entries of
the shipped config/datasets.yaml, pinned, read by common/data/hub_corpora.py, split with the pool from each source's
evaluation split, and run through the paper's first compute stage (the classical members) at a smoke size."""

from __future__ import annotations

import huggingface_hub.constants
import numpy as np
import pandas as pd
import pytest

from neurips26.common.data.datasets import get_dataset, prepare
from neurips26.common.data.hub_corpora import load_hub_ag_news, load_hub_imdb, load_hub_medmcqa, load_hub_mmlu
from neurips26.common.data.source_lock import read_lock
from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.ensemble_mi import data
from neurips26.papers.ensemble_mi.stages import STAGES

COMMIT = "c" * 40
WORDS = "good bad plot actor scene market team match vote cell gene dose".split()


def _texts(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, 8)) + f" {i}" for i in range(n)]


def _text_frame(n: int, classes: int, seed: int) -> pd.DataFrame:
    return pd.DataFrame({"text": _texts(n, seed), "label": np.arange(n) % classes})


def _mmlu_frame(n: int, seed: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question": _texts(n, seed),
            "subject": "anatomy",
            "choices": [[f"o{i}{c}" for c in "abcd"] for i in range(n)],
            "answer": np.arange(n) % 4,
        }
    )


def _medmcqa_frame(n: int, seed: int, cop=None) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "id": [f"q{i}" for i in range(n)],
            "question": _texts(n, seed),
            **{f"op{c}": [f"o{i}{c}" for i in range(n)] for c in "abcd"},
            "cop": np.arange(n) % 4 if cop is None else cop,
            "choice_type": "single",
            "exp": "",
            "subject_name": "Pharmacology",
            "topic_name": "",
        }
    )
    return frame


# repo -> file in the repository -> its rows (the real paths and columns of config/datasets.yaml's hub entries)
HUB = {
    "stanfordnlp/imdb": {
        "plain_text/test-00000-of-00001.parquet": _text_frame(40, 2, 1),
        "plain_text/train-00000-of-00001.parquet": _text_frame(60, 2, 2),
    },
    "fancyzhx/ag_news": {
        "data/test-00000-of-00001.parquet": _text_frame(40, 4, 3),
        "data/train-00000-of-00001.parquet": _text_frame(60, 4, 4),
    },
    "cais/mmlu": {
        "all/test-00000-of-00001.parquet": _mmlu_frame(40, 5),
        "all/validation-00000-of-00001.parquet": _mmlu_frame(12, 6),
    },
    "openlifescienceai/medmcqa": {
        "data/validation-00000-of-00001.parquet": _medmcqa_frame(40, 7),
        "data/train-00000-of-00001.parquet": _medmcqa_frame(60, 8),
    },
}


def _build_cache(root, hub=HUB):
    """huggingface_hub's cache layout under root/data/cache/huggingface: refs/main -> COMMIT, snapshots/COMMIT/<file>."""
    for repo, files in hub.items():
        folder = root / "data" / "cache" / "huggingface" / f"datasets--{repo.replace('/', '--')}"
        for name, frame in files.items():
            path = folder / "snapshots" / COMMIT / name
            path.parent.mkdir(parents=True, exist_ok=True)
            frame.to_parquet(path)
        (folder / "refs").mkdir(exist_ok=True)
        (folder / "refs" / "main").write_text(COMMIT)


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


@pytest.fixture
def fetched(offline, tmp_path, repo_root):
    """The three dataset ids prepared with data: real from the fake hub, through the shipped registry."""
    root = tmp_path / "repo"
    _build_cache(root)
    registry = repo_root / "config" / "datasets.yaml"
    return root, {
        i: prepare(get_dataset(i, registry), "real", root)
        for i in ("ensemble_mi_imdb", "ensemble_mi_bbc", "ensemble_mi_mmlu")
    }


def test_the_shipped_entries_fetch_pin_and_read_every_hub_task(fetched):
    root, provenance = fetched
    pins = read_lock(root / "data" / "sources.lock")
    assert pins[("ensemble_mi_mmlu", "medmcqa_train.parquet")].url == (
        f"hf://datasets/openlifescienceai/medmcqa@{COMMIT}/data/train-00000-of-00001.parquet"
    )
    assert len(pins) == 8
    folder = {i: p.parent for i, p in provenance.items()}
    labels, imdb = load_hub_imdb(folder["ensemble_mi_imdb"])
    assert labels == ["negative", "positive"] and len(imdb.y) == 100 and imdb.evaluation.sum() == 40
    topics, news = load_hub_ag_news(folder["ensemble_mi_bbc"])
    assert len(topics) == 4 and set(news.y) == {0, 1, 2, 3} and news.evaluation[:40].all()
    _, mmlu = load_hub_mmlu(folder["ensemble_mi_mmlu"])
    assert mmlu.options[0] == ["o0a", "o0b", "o0c", "o0d"] and mmlu.evaluation.sum() == 40 and len(mmlu.y) == 52
    _, med = load_hub_medmcqa(folder["ensemble_mi_mmlu"])
    assert med.options[1] == ["o1a", "o1b", "o1c", "o1d"] and med.topics[0] == "Pharmacology"
    assert list(med.y[:4]) == [0, 1, 2, 3] and med.evaluation.sum() == 40


def test_a_real_pool_comes_from_the_evaluation_split_and_training_from_the_training_split(fetched):
    root, provenance = fetched
    cfg = compose(
        "ensemble_mi",
        [
            "scale=tiny",
            "data=real",
            "tasks.ag_news.pool=20",
            "tasks.ag_news.train=30",
            "tasks.medmcqa.pool=10",
            "tasks.medmcqa.train=50",
        ],
    )
    assert data.task_names(cfg) == ["imdb", "ag_news", "mmlu", "medmcqa"]
    news = data.load_task("ag_news", provenance["ensemble_mi_bbc"].parent, cfg, 0)
    test_texts = set(HUB["fancyzhx/ag_news"]["data/test-00000-of-00001.parquet"].text)
    assert set(news.pool.texts) <= test_texts and not set(news.train.texts) & test_texts
    med = data.load_task("medmcqa", provenance["ensemble_mi_mmlu"].parent, cfg, 0)
    assert set(med.pool.texts) <= set(HUB["openlifescienceai/medmcqa"]["data/validation-00000-of-00001.parquet"].question)
    assert not set(med.pool.texts) & set(med.train.texts)


def test_training_rows_fall_back_to_evaluation_rows_only_when_the_training_split_runs_out(fetched):
    root, provenance = fetched
    cfg = compose(
        "ensemble_mi", ["scale=tiny", "data=real", "tasks.mmlu.pool=20", "tasks.mmlu.train=20", "tasks.mmlu.max_words=100"]
    )
    task = data.load_task("mmlu", provenance["ensemble_mi_mmlu"].parent, cfg, 0)
    validation = set(HUB["cais/mmlu"]["all/validation-00000-of-00001.parquet"].question)
    assert validation <= set(task.train.texts)  # all 12 validation questions first, then 8 test questions
    assert len(set(task.train.texts) - validation) == 8 and not set(task.pool.texts) & validation


def test_the_first_compute_stage_runs_on_the_hub_data(fetched, tmp_path):
    root, provenance = fetched
    cfg = compose(
        "ensemble_mi", ["scale=tiny", "data=real", "tasks.ag_news.pool=20", "tasks.ag_news.train=30", "+task=ag_news"]
    )
    out = tmp_path / "classic.csv"
    STAGES["predict_classic"](StageContext("ensemble_mi", cfg, [provenance["ensemble_mi_bbc"]], [out], 0))
    frame = pd.read_csv(out)
    assert len(frame) == 20 and set(frame.y) <= {0, 1, 2, 3} and frame.shape[1] > 3


def test_bad_hub_files_give_clear_errors(tmp_path):
    with pytest.raises(UserError, match="missing: run the data_prepare rule"):
        load_hub_imdb(tmp_path)
    _text_frame(4, 2, 0).rename(columns={"text": "review"}).to_parquet(tmp_path / "imdb_test.parquet")
    _text_frame(4, 2, 0).to_parquet(tmp_path / "imdb_train.parquet")
    with pytest.raises(UserError, match="columns \\['text'\\] missing"):
        load_hub_imdb(tmp_path)
    _medmcqa_frame(4, 0, cop=[-1] * 4).to_parquet(tmp_path / "medmcqa_validation.parquet")
    _medmcqa_frame(4, 1).to_parquet(tmp_path / "medmcqa_train.parquet")
    with pytest.raises(UserError, match="unlabelled"):
        load_hub_medmcqa(tmp_path)


def test_a_task_without_a_source_in_the_run_mode_is_refused(repo_root):
    cfg = compose("ensemble_mi", ["scale=tiny", "data=real", "tasks.real_names=[imdb,rt]"])
    with pytest.raises(UserError, match="no real source"):
        data.task_names(cfg)

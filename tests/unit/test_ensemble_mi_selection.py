"""The greedy step against brute force on a small pool, the budget constraint, the baselines, and the aggregator."""

import itertools

import numpy as np
import pytest

from neurips26.papers.ensemble_mi import baselines, copula
from neurips26.papers.ensemble_mi.aggregator import PatternAggregator, majority_vote
from neurips26.papers.ensemble_mi.information import exact_mi
from neurips26.papers.ensemble_mi.method import greedy, greedy_path


def small_pool(k=2):
    return copula.Pool.from_clusters([{"size": 3, "eps": [0.12, 0.16], "rho": 0.9},
                                      {"size": 3, "eps": [0.25, 0.3], "rho": 0.05}], k)


def exact_score(pool):
    return lambda subset: exact_mi(copula.exact_joint(pool, subset))


@pytest.mark.parametrize("k", [2, 3])
def test_each_greedy_step_is_the_brute_force_argmax_of_exact_mi(k):
    pool = small_pool(k)
    score = exact_score(pool)
    picks, values = greedy(score, np.ones(pool.size), 4)
    for step in range(4):
        before = picks[:step]
        brute = {m: score(before + [m]) for m in range(pool.size) if m not in before}
        best = max(brute.values())
        assert brute[picks[step]] == pytest.approx(best, abs=1e-12)
        assert values[step] == pytest.approx(best, abs=1e-12)


def test_greedy_exact_mi_avoids_the_redundant_cluster_that_top_k_picks():
    pool = small_pool(2)
    picks, _ = greedy(exact_score(pool), np.ones(pool.size), 3)
    top = list(np.argsort(pool.eps)[:3])  # the three most accurate are the correlated cluster
    assert sorted(top) == [0, 1, 2]
    assert exact_score(pool)(picks) > exact_score(pool)(top) + 0.01
    assert len(set(picks) & {3, 4, 5}) >= 1
    # brute force over all 3-subsets: greedy is within the (1 - 1/e) guarantee of submodular maximisation and here exact
    best = max(exact_score(pool)(list(s)) for s in itertools.combinations(range(pool.size), 3))
    assert exact_score(pool)(picks) >= (1 - 1 / np.e) * best


def test_greedy_respects_a_knapsack_budget():
    costs = np.array([3.0, 1.0, 1.0, 2.0, 5.0])
    picks, _ = greedy(lambda s: float(sum(10 - m for m in s)), costs, 4.0)
    assert costs[picks].sum() <= 4.0
    assert picks == [0, 1]  # model 0 is worth most; then only a cost-1 model still fits


def test_greedy_path_prefixes_are_the_selections_of_smaller_budgets():
    y, preds = copula.sample(small_pool(2), 600, np.random.default_rng(0))
    full, _ = greedy_path(y, preds, 2, 6, "plugin_mm", 2.0)
    for b in range(1, 6):
        assert greedy_path(y, preds, 2, b, "plugin_mm", 2.0)[0] == full[:b]


def test_baselines_rank_and_diversify():
    rng = np.random.default_rng(0)
    y, preds = copula.sample(small_pool(2), 2000, rng)
    acc = (preds == y[:, None]).mean(0)
    assert baselines.top_k(y, preds, 3) == [int(m) for m in np.argsort(-acc)[:3]]
    assert baselines.best_single(y, preds) == [int(np.argmax(acc))]
    assert sorted(baselines.random_k(6, 6, rng)) == list(range(6))
    diverse = baselines.accuracy_diversity(y, preds, 3, weight=5.0)
    assert len(set(diverse) & {3, 4, 5}) >= 1  # a heavy diversity weight leaves the correlated cluster


def test_aggregator_is_the_empirical_map_on_seen_patterns_and_a_vote_on_unseen_ones():
    y = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    preds = np.array([[0, 1], [0, 1], [0, 1], [0, 1], [1, 1], [1, 1], [1, 0], [1, 0]])
    agg = PatternAggregator(2, alpha=1e-6).fit(y, preds)
    assert agg.predict(np.array([[0, 1], [1, 1]])).tolist() == [0, 1]
    probs = agg.predict_proba(np.array([[0, 1]]))[0]
    assert probs[0] == pytest.approx(0.75, abs=1e-5)
    unseen = np.array([[0, 0]])
    np.testing.assert_allclose(agg.predict_proba(unseen), agg.backoff(unseen))
    assert majority_vote(np.array([[2, 2, 1], [0, 1, 1]]), 3).tolist() == [2, 1]


def test_integer_pattern_keys_give_the_same_aggregator_as_unique_rows(monkeypatch):
    """The aggregator indexes patterns by base-K integer keys; the unique-rows path (used when K^|S| overflows int64)
    must give the same probabilities, unseen patterns and out-of-range labels included."""
    from neurips26.papers.ensemble_mi import aggregator

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 700)
    preds = np.where(rng.random((700, 6)) < 0.4, (y[:, None] + rng.integers(1, 3, (700, 6))) % 3, y[:, None])
    test = preds[500:].copy()
    test[0, 0] = 7  # a label the calibration data never had
    fast = aggregator.PatternAggregator(3, 2.0).fit(y[:500], preds[:500]).predict_proba(test)
    assert aggregator.pattern_keys(preds, 3) is not None
    monkeypatch.setattr(aggregator, "pattern_keys", lambda p, k: None)
    slow = aggregator.PatternAggregator(3, 2.0).fit(y[:500], preds[:500]).predict_proba(test)
    assert np.array_equal(fast, slow)

"""RLDP against planted structure and brute force: direction, layer choice, AUROC, the AdaSwitch frontier, the probe."""

import itertools

import numpy as np
import pytest
from scipy.stats import spearmanr

from neurips26.papers.rldp import baselines, method


def _planted(rng, difficulty, layers=4, d=16, plant=2, strength=2.0):
    """(n, layers, d) states: isotropic noise, plus difficulty along a fixed unit direction at layer `plant` only."""
    u = np.zeros(d)
    u[:3] = 1 / np.sqrt(3)
    h = rng.normal(size=(len(difficulty), layers, d))
    h[:, plant] += strength * np.asarray(difficulty, float)[:, None] * u
    return h, u


def test_planted_direction_and_layer_recovered():
    rng = np.random.default_rng(0)
    h_ref, u = _planted(rng, [1] * 4 + [8] * 4)
    rldp = method.fit_rldp(h_ref[:4], h_ref[4:])
    assert rldp.layer == 2
    assert rldp.unit @ u > 0.9
    difficulty = rng.integers(1, 9, size=400)
    h_test, _ = _planted(rng, difficulty)
    assert spearmanr(rldp(h_test), difficulty).statistic > 0.9
    # the unplanted layers carry nothing: their leave-one-out AUROC stays near chance, the planted one is perfect
    assert rldp.loo[2][0] == 1.0 and max(rldp.loo[j][0] for j in (0, 1, 3)) < 1.0


def test_score_is_signed_projection_from_midpoint():
    easy, hard = np.array([[0.0, 0.0], [0.0, 2.0]]), np.array([[4.0, 0.0], [4.0, 2.0]])
    unit, mid = method.direction(easy, hard)
    np.testing.assert_allclose(unit, [1, 0])
    np.testing.assert_allclose(mid, [2, 1])
    np.testing.assert_allclose(method.score(np.array([[3.0, 7.0], [0.0, 0.0]]), unit, mid), [1.0, -2.0])


def test_auroc_matches_pairwise_count():
    rng = np.random.default_rng(1)
    s, y = rng.integers(0, 5, size=30).astype(float), rng.random(30) < 0.4
    pairs = [(a > b) + 0.5 * (a == b) for a, b in itertools.product(s[y], s[~y])]
    assert method.auroc(s, y) == pytest.approx(np.mean(pairs))


def test_frontier_matches_brute_force_routing():
    rng = np.random.default_rng(2)
    n = 12
    score = rng.random(n)
    tc, tt = rng.random(n) < 0.9, rng.integers(3, 12, n)
    pc, pt = rng.random(n) < 0.5, np.full(n, 2)
    over = rng.integers(0, 4, n)
    front = method.frontier(score, tc, tt, pc, pt, overhead_tokens=over)
    for k in range(n + 1):
        think = np.zeros(n, bool)
        think[np.argsort(-score)[:k]] = True
        assert front["accuracy"][k] == pytest.approx(np.where(think, tc, pc).mean())
        assert front["tokens"][k] == pytest.approx((np.where(think, tt, pt) + over).mean())
    assert method.cost_to_reach(front, 2.0) != method.cost_to_reach(front, 2.0)  # unreachable -> NaN


def test_ridge_matches_closed_form_and_probe_finds_layer():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 5))
    y = x @ np.array([1.0, -2.0, 0.0, 0.5, 0.0]) + 0.01 * rng.normal(size=200)
    w, b, mu, sd = baselines.ridge_fit(x, y, alpha=1e-9)
    z = (x - mu) / sd
    np.testing.assert_allclose(w, np.linalg.lstsq(z, y - y.mean(), rcond=None)[0], atol=1e-6)
    difficulty = rng.integers(1, 9, size=300)
    h, _ = _planted(rng, difficulty, plant=1, strength=3.0)
    probe = baselines.RidgeProbe(h, difficulty.astype(float))
    assert probe.layer == 1
    assert spearmanr(probe(h), difficulty).statistic > 0.9


def test_rollout_agreement():
    score, majority = baselines.rollout_agreement(np.array([[3, 3, 3, 3], [1, 2, 1, -1], [-1, -1, -1, -1]]))
    np.testing.assert_allclose(score, [0.0, 0.5, 1.0])
    assert majority.tolist() == [3, 1, -1]

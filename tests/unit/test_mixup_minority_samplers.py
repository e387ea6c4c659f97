"""Each Mixup pair sampler's class-pair frequencies against its closed form (chi-square), and the MS target rule."""

import numpy as np
import pytest
from scipy.stats import chi2

from neurips26.papers.mixup_minority.method import mixup_targets, ms_targets, pair_index_matrix
from neurips26.papers.mixup_minority.samplers import (
    SAMPLERS,
    PairSampler,
    draw_single,
    label_pairs,
    pair_probabilities,
    single_probabilities,
    unordered_probabilities,
)

COUNTS = np.array([200, 90, 40, 12, 5])  # a long tail, K = 5
DRAWS = 40_000
ALPHA = 1e-3  # each test rejects a correct sampler with probability 0.001


def _labels():
    return np.repeat(np.arange(len(COUNTS)), COUNTS)


def _chi_square_pvalue(observed: np.ndarray, expected_p: np.ndarray) -> float:
    keep = expected_p > 0
    expected = expected_p[keep] * observed.sum()
    stat = float(((observed[keep] - expected) ** 2 / expected).sum())
    assert observed[~keep].sum() == 0, "a pair of probability 0 was drawn"
    return float(chi2.sf(stat, keep.sum() - 1))


@pytest.mark.parametrize("kind", SAMPLERS)
def test_pair_frequencies_match_the_closed_form(kind):
    labels, k = _labels(), len(COUNTS)
    i, j = PairSampler(kind, labels, k).draw(DRAWS, np.random.default_rng(3))
    observed = np.zeros((k, k))
    np.add.at(observed, (labels[i], labels[j]), 1)
    assert _chi_square_pvalue(observed.ravel(), pair_probabilities(kind, COUNTS).ravel()) > ALPHA


@pytest.mark.parametrize("kind", SAMPLERS)
def test_a_wrong_closed_form_is_rejected(kind):
    """The test has power: the draws of each sampler reject the closed form of a different sampler."""
    labels, k = _labels(), len(COUNTS)
    i, j = PairSampler(kind, labels, k).draw(DRAWS, np.random.default_rng(4))
    observed = np.zeros((k, k))
    np.add.at(observed, (labels[i], labels[j]), 1)
    other = SAMPLERS[(SAMPLERS.index(kind) + 1) % len(SAMPLERS)]
    assert _chi_square_pvalue(observed.ravel(), pair_probabilities(other, COUNTS).ravel()) < ALPHA


def test_closed_forms_by_hand():
    n = COUNTS / COUNTS.sum()
    k = len(COUNTS)
    assert np.allclose(pair_probabilities("instance", COUNTS)[1, 3], n[1] * n[3])
    assert np.allclose(pair_probabilities("class_balanced", COUNTS)[4, 0], n[0] / k)
    assert np.allclose(pair_probabilities("class_class", COUNTS), 1 / k**2)
    # BMLS: every unordered label (K pure + K(K-1)/2 mixed) has probability 2 / (K (K + 1))
    assert np.allclose(unordered_probabilities("bmls", COUNTS), 2 / (k * (k + 1)))
    for kind in SAMPLERS:
        assert np.isclose(pair_probabilities(kind, COUNTS).sum(), 1.0)
        assert np.isclose(unordered_probabilities(kind, COUNTS).sum(), 1.0)


def test_bmls_balances_mixed_labels_and_instance_sampling_does_not():
    mixed = len(COUNTS)  # unordered labels after the K pure ones are the pairs
    bmls = unordered_probabilities("bmls", COUNTS)[mixed:]
    inst = unordered_probabilities("instance", COUNTS)[mixed:]
    assert bmls.max() / bmls.min() == pytest.approx(1.0)
    assert inst.max() / inst.min() == pytest.approx((200 * 90) / (12 * 5))


@pytest.mark.parametrize("kind", ["instance", "class_balanced"])
def test_single_instance_sampling(kind):
    labels, k = _labels(), len(COUNTS)
    idx = draw_single(PairSampler("instance", labels, k), kind, DRAWS, np.random.default_rng(5))
    observed = np.bincount(labels[idx], minlength=k)
    assert _chi_square_pvalue(observed, single_probabilities(kind, COUNTS)) > ALPHA


def test_within_class_instances_are_uniform():
    labels = _labels()
    i, _ = PairSampler("class_class", labels, len(COUNTS)).draw(DRAWS, np.random.default_rng(6))
    members = np.flatnonzero(labels == 2)
    observed = np.array([(i == m).sum() for m in members])
    assert _chi_square_pvalue(observed, np.full(len(members), 1 / len(members))) > ALPHA


def test_ms_target_rule_at_the_lambda_thresholds():
    k, delta = 4, 0.25
    index = pair_index_matrix(k)
    a = np.array([0, 0, 0, 0, 0, 0, 2, 3])
    b = np.array([1, 1, 1, 1, 1, 1, 2, 1])
    lam = np.array([0.0, 0.2499, 0.25, 0.5, 0.75, 0.7501, 0.5, 1.0])
    expected = [1, 1, index[0, 1], index[0, 1], index[0, 1], 0, 2, 3]
    assert ms_targets(a, b, lam, delta, k).tolist() == expected
    # symmetric: (b, a, 1 - lambda) is the same mixed input
    assert ms_targets(b, a, 1 - lam, delta, k).tolist() == expected


def test_pair_index_covers_every_singleton_once():
    k = 5
    index = pair_index_matrix(k)
    assert np.array_equal(index, index.T)
    assert np.array_equal(np.diag(index), np.arange(k))
    assert sorted(index[np.triu_indices(k, 1)].tolist()) == list(range(k, k * (k + 1) // 2))
    a, b = label_pairs(k)
    assert np.array_equal(index[a, b], np.arange(k * (k + 1) // 2))


def test_mixup_targets_are_convex_combinations():
    t = mixup_targets(np.array([0, 2]), np.array([1, 2]), np.array([0.3, 0.6]), 3)
    assert np.allclose(t, [[0.3, 0.7, 0], [0, 0, 1]])

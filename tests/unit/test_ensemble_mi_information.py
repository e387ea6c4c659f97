"""MI estimators and the copula likelihood against independent references: exact MI by enumeration of every latent
draw pattern (brute-force Monte Carlo of the latent model), closed-form MI of simple channels, and known biases."""

import numpy as np
import pytest

from neurips26.papers.ensemble_mi import copula
from neurips26.papers.ensemble_mi.information import cv_mi, entropy_bits, exact_mi, plugin_mi


def binary_symmetric_mi(eps):
    h = -(eps * np.log2(eps) + (1 - eps) * np.log2(1 - eps))
    return 1.0 - h


def test_exact_mi_of_a_binary_symmetric_channel():
    eps = 0.2
    joint = 0.5 * np.array([[1 - eps, eps], [eps, 1 - eps]])
    assert exact_mi(joint) == pytest.approx(binary_symmetric_mi(eps), abs=1e-12)
    assert exact_mi(np.full((3, 4), 1 / 12)) == pytest.approx(0.0, abs=1e-12)


def test_miller_madow_adds_the_first_order_bias_term():
    counts = np.array([5, 3, 0, 2])
    assert entropy_bits(counts, True) - entropy_bits(counts) == pytest.approx(2 / (2 * 10 * np.log(2)))


def test_independent_models_single_cluster_exact_joint_matches_the_product_channel():
    # rho -> 0: errors independent, so p(yhat_S | y) is a product of symmetric channels (closed form)
    pool = copula.Pool(np.array([0.1, 0.3]), np.array([0, 0]), np.array([1e-9]), 2)
    joint = copula.exact_joint(pool, [0, 1])
    e1, e2 = 0.1, 0.3
    want = 0.5 * np.array([[(1 - e1) * (1 - e2), (1 - e1) * e2, e1 * (1 - e2), e1 * e2],
                           [e1 * e2, e1 * (1 - e2), (1 - e1) * e2, (1 - e1) * (1 - e2)]])
    np.testing.assert_allclose(joint, want, atol=1e-6)


@pytest.mark.parametrize("k", [2, 4])
def test_exact_joint_matches_a_large_simulation_of_the_latent_model(k):
    pool = copula.Pool.from_clusters([{"size": 2, "eps": [0.2, 0.3], "rho": 0.8},
                                      {"size": 1, "eps": [0.35, 0.35], "rho": 0.3}], k)
    joint = copula.exact_joint(pool, [0, 1, 2])
    assert joint.sum() == pytest.approx(1.0, abs=1e-9)
    y, preds = copula.sample(pool, 400_000, np.random.default_rng(0))
    codes = preds[:, 0] * k * k + preds[:, 1] * k + preds[:, 2]
    empirical = np.zeros_like(joint)
    np.add.at(empirical, (y, codes), 1.0)
    np.testing.assert_allclose(empirical / len(y), joint, atol=4e-3)
    # marginal error rates are the configured eps (the copula keeps each model's accuracy)
    np.testing.assert_allclose((preds != y[:, None]).mean(0), [0.2, 0.3, 0.35], atol=4e-3)


@pytest.mark.slow
@pytest.mark.parametrize("k,size", [(2, 3), (4, 2)])
def test_estimators_converge_to_exact_mi(k, size):
    pool = copula.Pool.from_clusters([{"size": 3, "eps": [0.15, 0.25], "rho": 0.7},
                                      {"size": 3, "eps": [0.3, 0.35], "rho": 0.1}], k)
    subset = [0, 3, 5][:size] if size < 3 else [0, 1, 4]
    truth = exact_mi(copula.exact_joint(pool, subset))
    y, preds = copula.sample(pool, 60_000, np.random.default_rng(1))
    assert plugin_mi(y, preds[:, subset]) == pytest.approx(truth, abs=0.01)
    assert cv_mi(y[:20_000], preds[:20_000][:, subset], k, alpha=2.0) == pytest.approx(truth, abs=0.02)
    mc, _ = copula.mc_mi(pool, subset, y[:20_000], preds[:20_000])
    assert mc == pytest.approx(truth, abs=0.02)


def test_miller_madow_reduces_plugin_bias_on_small_samples():
    pool = copula.Pool.from_clusters([{"size": 4, "eps": [0.2, 0.3], "rho": 0.4}], 2)
    truth = exact_mi(copula.exact_joint(pool, [0, 1, 2, 3]))
    rng = np.random.default_rng(2)
    plain, corrected = [], []
    for _ in range(60):
        y, preds = copula.sample(pool, 120, rng)
        plain.append(plugin_mi(y, preds, miller_madow=False) - truth)
        corrected.append(plugin_mi(y, preds, miller_madow=True) - truth)
    assert np.mean(plain) > 0.02  # the plug-in overestimates MI on small samples
    assert abs(np.mean(corrected)) < abs(np.mean(plain)) / 2

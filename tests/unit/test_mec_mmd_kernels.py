"""Kernel sums against brute force, and the closed-form Gaussian MMD^2 against Monte Carlo and numerical integration."""

import numpy as np
import pytest

from neurips26.papers.mec_mmd import kernels
from neurips26.papers.mec_mmd.baselines import oracle
from neurips26.papers.mec_mmd.data import Mixture
from neurips26.papers.mec_mmd.models import GaussianModel, gaussian_pair_expectation, population_mmd2


def _brute(a, b, h):
    """Full matrix by an explicit double loop: independent of the vectorised code."""
    return np.array([[np.exp(-np.sum((u - v) ** 2) / (2 * h * h)) for v in b] for u in a])


@pytest.mark.parametrize("d", [1, 3])
def test_blockwise_sums_match_brute_force(monkeypatch, d):
    rng = np.random.default_rng(1)
    a, b, h = rng.normal(size=(57, d)), rng.normal(size=(31, d)), 0.9
    monkeypatch.setattr(kernels, "BLOCK_ELEMS", 40)  # force many small blocks, including a ragged last one
    full_ab, full_aa = _brute(a, b, h), _brute(a, a, h)
    np.testing.assert_allclose(kernels.row_sums(a, b, h), full_ab.sum(1), rtol=0, atol=1e-10)
    assert abs(kernels.cross_mean(a, b, h) - full_ab.mean()) < 1e-10
    assert abs(kernels.pair_sum(a, h) - (full_aa.sum() - np.trace(full_aa))) < 1e-10
    assert abs(kernels.u_mean(a, h) - (full_aa.sum() - 57) / (57 * 56)) < 1e-10


def test_pair_expectation_matches_numerical_integration():
    """1-d: E k(U, V) by a dense grid double integral against the closed form."""
    m1, v1, m2, v2, h = 0.3, 0.7, -0.5, 1.3, 0.8
    grid = np.linspace(-9, 9, 1201)
    dx = grid[1] - grid[0]
    pu = np.exp(-(grid - m1) ** 2 / (2 * v1)) / np.sqrt(2 * np.pi * v1)
    pv = np.exp(-(grid - m2) ** 2 / (2 * v2)) / np.sqrt(2 * np.pi * v2)
    k = np.exp(-(grid[:, None] - grid[None, :]) ** 2 / (2 * h * h))
    numeric = pu @ k @ pv * dx * dx
    closed = gaussian_pair_expectation([m1], [[v1]], [m2], [[v2]], h)
    assert abs(numeric - closed) < 1e-8


def test_closed_form_mmd_matches_monte_carlo_and_oracle_converges():
    mix = Mixture(np.array([0.3, 0.7]), np.array([[-1.0, 0.0], [1.0, 0.5]]), np.array([[0.5, 0.3], [0.4, 0.8]]))
    h = 1.0
    q = GaussianModel(np.array([0.5, 0.0]), np.eye(2), h)
    exact = population_mmd2(mix.components, q.as_mixture, h)
    assert exact > 0.01
    rng = np.random.default_rng(0)
    # Monte Carlo of each expectation with independent pairs (unbiased, error ~ 1/sqrt(200000))
    xs, xs2 = mix.sample(rng, 200_000), mix.sample(rng, 200_000)
    zs = q.mean + rng.normal(size=(200_000, 2))
    kk = lambda u, v: np.exp(-np.sum((u - v) ** 2, 1) / (2 * h * h))  # noqa: E731
    zs2 = q.mean + rng.normal(size=(200_000, 2))
    mc = kk(xs, xs2).mean() + kk(zs, zs2).mean() - 2 * kk(xs, zs).mean()
    assert abs(mc - exact) < 0.006
    # the oracle U-statistic (with Q's embedding in closed form) concentrates on the population value as N grows
    errors = [np.mean([(oracle(mix.sample(rng, N), q, h) - exact) ** 2 for _ in range(20)]) for N in (100, 1600)]
    assert errors[1] < errors[0] / 6  # ~1/N for the squared error: 16x fewer in expectation, loose margin
    assert np.sqrt(errors[1]) < 0.02

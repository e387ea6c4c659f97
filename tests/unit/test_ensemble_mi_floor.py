"""The copula error floor: closed form against simulation of the latent model, the brief's worked number, and the
information form (exact information of M votes is bounded by the ceiling, and the Fano floor lies below the vote floor)."""

import numpy as np
import pytest

from neurips26.papers.ensemble_mi import copula


def test_binary_floor_is_the_briefs_formula_and_number():
    assert copula.vote_floor(0.3, 0.3, 2) == pytest.approx(0.1692, abs=5e-4)  # "eps = rho = 0.3 gives about 0.17"


@pytest.mark.parametrize("eps,rho,k", [(0.3, 0.3, 2), (0.2, 0.6, 2), (0.4, 0.5, 4), (0.3, 0.2, 4)])
def test_closed_form_floor_matches_simulation_with_many_models(eps, rho, k):
    simulated = copula.simulated_vote_error(eps, rho, 801, k, rng_seed=0, n=6000)
    assert simulated == pytest.approx(float(copula.vote_floor(eps, rho, k)), abs=0.02)


@pytest.mark.parametrize("eps,rho,models,k", [(0.3, 0.5, 101, 2), (0.4, 0.2, 100, 4), (0.2, 0.9, 10, 3)])
def test_the_vote_count_equals_counting_each_sampled_models_prediction(eps, rho, models, k):
    """simulated_vote_error counts votes per shift; the reference counts every model's prediction from `sample` (the
    same draws in the same order), so the two must agree exactly, ties (even M) included."""
    rng = np.random.default_rng(5)
    pool = copula.Pool(np.full(models, eps), np.zeros(models, dtype=int), np.array([rho]), k)
    errors = 0
    for start in range(0, 4500, 2000):
        y, preds = copula.sample(pool, min(2000, 4500 - start), rng)
        votes = (preds[:, :, None] == np.arange(k)[None, None, :]).sum(1).astype(float)
        votes += rng.uniform(0, 0.5, votes.shape)
        errors += int((votes.argmax(1) != y).sum())
    assert copula.simulated_vote_error(eps, rho, models, k, rng_seed=5, n=4500) == errors / 4500


def test_floor_rises_with_correlation_and_is_the_single_model_error_at_rho_one():
    rho = np.linspace(0.05, 0.95, 19)
    for k in (2, 4):
        assert np.all(np.diff(copula.vote_floor(0.3, rho, k)) > 0)
    assert copula.vote_floor(0.3, 1 - 1e-12, 2) == pytest.approx(0.3, abs=1e-4)


def test_information_of_m_votes_increases_to_the_ceiling():
    eps, rho = 0.3, 0.3
    single, error = copula.binary_count_information(eps, rho, 1)
    h = -(eps * np.log2(eps) + (1 - eps) * np.log2(1 - eps))
    assert single == pytest.approx(1 - h, abs=1e-6) and error == pytest.approx(eps, abs=1e-6)
    info = [copula.binary_count_information(eps, rho, m)[0] for m in (1, 3, 9, 27, 81, 729)]
    ceiling = copula.binary_information_ceiling(eps, rho)
    assert np.all(np.diff(info) > 0) and info[-1] <= ceiling + 1e-9
    assert info[-1] == pytest.approx(ceiling, abs=0.01)
    # the Bayes error of many votes reaches the vote floor (for K = 2 the MAP of infinitely many votes is the vote)
    assert copula.binary_count_information(eps, rho, 2001)[1] == pytest.approx(copula.vote_floor(eps, rho, 2), abs=0.01)
    assert copula.fano_floor(ceiling) < copula.vote_floor(eps, rho, 2)


def test_fano_inverts_the_binary_entropy():
    eps = 0.11
    h = -(eps * np.log2(eps) + (1 - eps) * np.log2(1 - eps))
    assert copula.fano_floor(1 - h) == pytest.approx(eps, abs=1e-9)

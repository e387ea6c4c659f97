"""Issue #69: the copula fitted to predictions recovers the simulator's eps and rho, predicts its plateau, and the
power split / decorrelated pool of the real-pool runs keep what they must."""

import numpy as np
from omegaconf import OmegaConf

from neurips26.papers.ensemble_mi import copula, copula_fit, experiments

CLUSTERS = [{"size": 5, "eps": [0.15, 0.2], "rho": 0.8}, {"size": 4, "eps": [0.25, 0.3], "rho": 0.3}]


def test_the_fit_recovers_eps_and_rho_within_three_bootstrap_standard_errors():
    for k in (2, 4):
        pool = copula.Pool.from_clusters(CLUSTERS, k)
        rng = np.random.default_rng(3)
        y, preds = copula.sample(pool, 1500, rng)
        fitted = copula_fit.fit(y, preds, k, 0.5, pool.cluster)
        se_eps, se_rho = copula_fit.bootstrap_se(y, preds, k, pool.cluster, 20, rng)
        assert np.all(np.abs(fitted.eps - pool.eps) <= 3 * se_eps)
        assert np.all(np.abs(fitted.rho - pool.rho) <= 3 * se_rho)
        assert np.all(se_rho < 0.1)  # the SE is informative, not a bound that any value meets


def test_the_clusters_separate_a_correlated_block_from_independent_members():
    pool = copula.Pool.from_clusters(
        [{"size": 4, "eps": [0.2, 0.2], "rho": 0.9}, {"size": 3, "eps": [0.3, 0.3], "rho": 0.0}], 2
    )
    y, preds = copula.sample(pool, 3000, np.random.default_rng(0))
    label = copula_fit.fit(y, preds, 2, 0.5).cluster
    assert len(set(label[:4])) == 1 and len(set(label[4:])) == 3 and label[0] not in label[4:]


def test_the_predicted_plateau_follows_the_floor_and_rho_zero_removes_it():
    pool = copula.Pool.from_clusters([{"size": 9, "eps": [0.3, 0.3], "rho": 0.6}], 2)
    rng = np.random.default_rng(1)
    with_floor = copula_fit.predicted_plateau(pool, 2000, 20000, 2.0, rng)
    without = copula_fit.predicted_plateau(pool, 2000, 20000, 2.0, rng, independent=True)
    # the aggregator, fit on 2,000 simulated rows, errs about as often as the plurality vote of the same members
    assert abs((1 - with_floor) - copula.simulated_vote_error(0.3, 0.6, 9, 2, 0, 20000)) < 0.04
    assert without > with_floor + 0.1


def test_the_power_split_is_disjoint_from_every_judged_half():
    power, halves = experiments.split_rows(1000, 0.2, 3, np.random.default_rng(0))
    assert len(power) == 200
    for cal, test in halves:
        assert not set(power) & (set(cal) | set(test)) and not set(cal) & set(test)
        assert len(cal) + len(test) == 800


def test_the_decorrelated_pool_keeps_per_class_accuracy_and_breaks_error_correlation():
    pool = copula.Pool.from_clusters([{"size": 4, "eps": [0.2, 0.25], "rho": 0.9}], 2)
    rng = np.random.default_rng(2)
    y, preds = copula.sample(pool, 2000, rng)
    halves = [np.arange(1000), np.arange(1000, 2000)]
    free = experiments.decorrelated_pool(y, preds, halves, rng)
    for rows in halves:
        for c in (0, 1):
            same = rows[y[rows] == c]
            assert np.array_equal((free[same] == c).sum(0), (preds[same] == c).sum(0))
    errors, free_errors = preds != y[:, None], free != y[:, None]
    assert np.corrcoef(errors.T)[0, 1] > 0.5 and abs(np.corrcoef(free_errors.T)[0, 1]) < 0.1


def test_copula_rows_predict_below_the_independent_fit():
    cfg = OmegaConf.create({"copula_fit": {"cut": 0.5, "n_test": 5000}, "selection": {"alpha": 2.0}})
    pool = copula.Pool.from_clusters([{"size": 7, "eps": [0.25, 0.3], "rho": 0.7}], 2)
    rng = np.random.default_rng(4)
    y, preds = copula.sample(pool, 1000, rng)
    rows = {r["task"]: r for r in experiments.copula_rows(cfg, "toy", y, preds, 2, rng)}
    assert rows["toy_copula"]["accuracy"] < rows["toy_copula_indep"]["accuracy"] - 0.05
    assert rows["toy_copula"]["clusters"] == 1 and abs(rows["toy_copula"]["largest_rho"] - 0.7) < 0.1

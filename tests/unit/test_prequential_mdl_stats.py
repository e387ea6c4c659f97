"""Correlations against scipy (ties included), the bootstrap intervals, the tables, and the claims' verdicts."""

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf
from scipy import stats

from neurips26.papers.prequential_mdl import paper_claims
from neurips26.papers.prequential_mdl.correlations import correlate, kendall_rows, pearson_rows, spearman_rows
from neurips26.papers.prequential_mdl.tables import table_bound, table_correlations


@pytest.fixture
def xy():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 6, 40).astype(float)  # ties on purpose
    return x, 0.5 * x + rng.normal(size=40)


def test_row_coefficients_match_scipy(xy):
    x, y = xy
    assert pearson_rows(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, rel=1e-12)
    assert spearman_rows(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, rel=1e-12)
    assert kendall_rows(x, y)[0] == pytest.approx(stats.kendalltau(x, y).statistic, rel=1e-12)  # tau-b
    batch = np.stack([x, y[::-1], np.sort(x)])
    expected = [stats.kendalltau(row, y).statistic for row in batch]
    np.testing.assert_allclose(kendall_rows(batch, np.tile(y, (3, 1)), chunk=2), expected, rtol=1e-12)


def test_a_constant_measure_has_no_correlation(xy):
    x, y = xy
    assert np.isnan(pearson_rows(np.ones_like(x), y)) and np.isnan(kendall_rows(np.ones_like(x), y)[0])


def test_bootstrap_intervals_bracket_the_estimate_and_shrink_with_more_runs():
    rng = np.random.default_rng(1)
    x = rng.normal(size=400)
    y = x + rng.normal(size=400)
    small, large = correlate(x[:40], y[:40], 400, seed=0), correlate(x, y, 400, seed=0)
    for kind in ("pearson", "spearman", "kendall"):
        assert large[f"{kind}_lo"] <= large[kind] <= large[f"{kind}_hi"]
        assert large[f"{kind}_hi"] - large[f"{kind}_lo"] < small[f"{kind}_hi"] - small[f"{kind}_lo"]
    assert correlate(x, y, 100, seed=3) == correlate(x, y, 100, seed=3)


def _runs():
    rng = np.random.default_rng(2)
    rows = []
    for task in ("c10proxy", "c100proxy"):
        for i in range(12):
            err = 0.1 + 0.05 * i
            rows.append({"task": task, "noise": 0.1 * (i % 4), "width": 32, "n": 100 * (1 + i % 3), "seed": i,
                         "interpolated": True, "train_err": 0.0, "test_err": err, "test_err_clean": err / 2,
                         "gen_gap": err, "regret_bits": 100 * err, "regret_per_example": err,
                         "l2_norm": rng.normal(), "dist_init": -err, "final_train_loss": 0.01,
                         "bound": err + 0.2 if i else err - 0.01})
    return pd.DataFrame(rows)


CFG = OmegaConf.create({
    "targets": ["test_err"], "bootstrap": {"resamples": 50}, "bound": {"delta": 0.05},
    "measures": {"regret": "regret_per_example", "l2_norm": "l2_norm", "dist_init": "dist_init",
                 "final_train_loss": "final_train_loss"},
    "claims": {"target": "test_err", "pearson_threshold": 0.9,
               "baselines": ["l2_norm", "dist_init", "final_train_loss"]}})


def test_claims_follow_the_tables():
    runs = _runs()
    corr, bound = table_correlations(runs, CFG), table_bound(runs)
    assert len(corr) == 2 * 4 and bound.holds.sum() == len(runs) - 2  # one violating run per task
    claims, metrics = paper_claims.build(corr, bound, CFG)
    verdicts = {c.id: c.to_json()["holds"] for c in claims}
    # regret is the test error itself here (r = 1 > 0.9); dist_init anti-correlates; one bound is violated per task
    assert verdicts["regret_tracks_test_error"] is True
    assert verdicts["regret_beats_norms_and_train_loss"] is True
    assert verdicts["pac_mdl_bound"] is False and claims[2].measured["violations"] == 2
    assert verdicts["expected_regret_bounds_description_length"] is None
    assert metrics["regret_tracks_test_error"]["pearson_c10proxy"] == pytest.approx(1.0)

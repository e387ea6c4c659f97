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
    """12 runs per task: the even ones interpolate (train_err 0) and their regret is the test error itself; the odd
    ones stop at 5% training error with a regret that falls as the error rises (what the default runs showed)."""
    rng = np.random.default_rng(2)
    rows = []
    for task in ("c10proxy", "c100proxy"):
        for i in range(12):
            err, inside = 0.1 + 0.05 * i, i % 2 == 0
            rows.append({"task": task, "noise": 0.1 * (i % 4), "width": 32, "n": 100 * (1 + i % 3), "seed": i,
                         "interpolated": inside, "train_err": 0.0 if inside else 0.05, "test_err": err,
                         "test_err_clean": err / 2, "gen_gap": err, "regret_bits": 100 * err,
                         "regret_per_example": err if inside else 2.0 - 3 * err,
                         "l2_norm": rng.normal(), "dist_init": -err, "final_train_loss": 0.01,
                         "bound": err + 0.2 if i else err - 0.01})
    return pd.DataFrame(rows)


def _control(sign: float = 1.0):
    noise = np.linspace(0.0, 0.6, 7)
    return pd.DataFrame({"task": "control", "noise": noise, "train_err": 0.0, "test_err": 0.9 * noise,
                         "regret_per_example": 1.0 + sign * noise})


CFG = OmegaConf.create({
    "targets": ["test_err"], "bootstrap": {"resamples": 50}, "bound": {"delta": 0.05}, "seeds": [0],
    "regime": {"max_train_err": 0.01}, "control": {"noise": [0.0, 0.3, 0.6]},
    "measures": {"regret": "regret_per_example", "l2_norm": "l2_norm", "dist_init": "dist_init",
                 "final_train_loss": "final_train_loss"},
    "claims": {"target": "test_err", "pearson_threshold": 0.9, "min_runs": 5,
               "baselines": ["l2_norm", "dist_init", "final_train_loss"]}})


def test_interpolating_rows_are_computed_over_the_regime_only():
    runs = _runs()
    corr = table_correlations(runs, CFG)
    assert len(corr) == 2 * 2 * 4 and set(corr.subset) == {"all", "interpolating"}
    for task, part in runs.groupby("task"):
        inside = part[part.train_err <= 0.01]
        for subset, frame in (("all", part), ("interpolating", inside)):
            row = corr[(corr.task == task) & (corr.subset == subset) & (corr.measure == "regret")].iloc[0]
            assert row.runs == len(frame)
            assert row.pearson == pytest.approx(stats.pearsonr(frame.regret_per_example, frame.test_err)[0])
    # a regime that no run reaches leaves NaN coefficients and a run count of 0, not an error
    none = table_correlations(runs.assign(train_err=0.5), CFG)
    assert (none[none.subset == "interpolating"].runs == 0).all()
    assert none[none.subset == "interpolating"].pearson.isna().all()


def test_claims_follow_the_tables():
    runs = _runs()
    corr, bound = table_correlations(runs, CFG), table_bound(runs)
    assert bound.holds.sum() == len(runs) - 2  # one violating run per task
    claims, metrics = paper_claims.build(corr, bound, _control(), CFG)
    verdicts = {c.id: c.to_json()["holds"] for c in claims}
    # in the regime the regret is the test error (r = 1 > 0.9); over all runs the non-interpolating runs break it
    assert verdicts["regret_tracks_test_error"] is True
    assert claims[0].measured["min_runs"] == 6
    assert verdicts["regret_tracks_test_error_all_runs"] is False
    assert metrics["regret_tracks_test_error"]["pearson_c10proxy"] == pytest.approx(1.0)
    assert metrics["regret_tracks_test_error_all_runs"]["pearson_c10proxy"] < 0.9
    # the positive control passes the same criterion where regret and error rise together by construction ...
    for claim in claims[:2]:
        control = claim.to_json()["positive_control"]
        assert control["holds"] is True and control["measured"]["pearson_control"] == pytest.approx(1.0)
    # ... and fails it when they do not
    anti, _ = paper_claims.build(corr, bound, _control(sign=-1.0), CFG)
    assert anti[0].to_json()["positive_control"]["holds"] is False
    # dist_init anti-correlates, the L2 norm is noise, the final train loss constant: over all runs the regret is
    # still ahead of them; one bound is violated per task
    assert verdicts["pac_mdl_bound"] is False and claims[3].measured["violations"] == 2
    assert verdicts["expected_regret_bounds_description_length"] is None


def test_too_few_interpolating_runs_fail_the_regime_claim():
    runs = _runs()
    runs.loc[runs.seed > 4, "train_err"] = 0.5  # 3 regime runs per task, fewer than claims.min_runs = 5
    claims, _ = paper_claims.build(table_correlations(runs, CFG), table_bound(runs), _control(), CFG)
    assert claims[0].measured["min_runs"] == 3 and claims[0].to_json()["holds"] is False


def test_a_run_stopped_at_exactly_the_target_accuracy_is_in_the_regime():
    from neurips26.papers.prequential_mdl.tables import interpolating

    runs = pd.DataFrame({"train_err": [1 - 0.99, 0.0, 0.0100001]})
    assert interpolating(runs, CFG).tolist() == [True, True, False]


def test_a_task_without_interpolating_runs_leaves_the_regime_claim_untested():
    runs = _runs()
    runs.loc[runs.task == "c10proxy", "train_err"] = 0.5
    claims, _ = paper_claims.build(table_correlations(runs, CFG), table_bound(runs), _control(), CFG)
    entry = claims[0].to_json()
    assert entry["holds"] is None and "c10proxy" in entry["why_untested"]
    assert claims[1].to_json()["holds"] is not None  # the all-runs claim is still tested

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


@pytest.mark.slow
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


def _build(runs, control=None, scale="long"):
    claims = paper_claims.build(table_correlations(runs, CFG), table_bound(runs), _control() if control is None
                                else control, runs, CFG)
    return {c.id: c.to_json(scale, "embedded") for c in claims}


def test_claims_match_the_registered_list():
    from neurips26.common.pipeline.registry import registered_claims

    assert set(_build(_runs())) == {c["id"] for c in registered_claims("prequential_mdl")["claims"]}


def test_claims_follow_the_tables():
    runs = _runs()
    assert table_bound(runs).holds.sum() == len(runs) - 2  # one violating run per task
    doc = _build(runs)
    # in the regime the regret is the test error (r = 1, interval [1, 1] above 0.9); over all runs the
    # non-interpolating runs break it (their regret falls as the error rises)
    assert doc["regret_tracks_test_error"]["verdict"] == "holds"
    assert [t["measured"]["runs"] for t in doc["regret_tracks_test_error"]["tests"]] == [6, 6]
    assert doc["regret_tracks_test_error"]["tests"][0]["measured"]["pearson_lo"] == pytest.approx(1.0)
    assert doc["regret_tracks_test_error_all_runs"]["verdict"] == "fails"
    assert doc["regret_tracks_test_error_all_runs"]["tests"][0]["measured"]["pearson_hi"] < 0.9
    # the positive control passes the same test where regret and error rise together by construction ...
    for claim in ("regret_tracks_test_error", "regret_tracks_test_error_all_runs"):
        control = doc[claim]["controls"][0]
        assert control["passed"] is True and control["test"]["measured"]["pearson"] == pytest.approx(1.0)
    # ... and fails it when they do not, which makes a claim that would hold inconclusive
    anti = _build(runs, _control(sign=-1.0))
    assert anti["regret_tracks_test_error"]["controls"][0]["passed"] is False
    assert anti["regret_tracks_test_error"]["outcome"] == "holds"
    assert anti["regret_tracks_test_error"]["verdict"] == "inconclusive"
    # one bound is violated per task; the negative control (R = 0) is violated too, so it passes
    bound = doc["pac_mdl_bound"]
    assert bound["verdict"] == "fails" and bound["tests"][0]["measured"]["violations"] == 2
    assert doc["expected_regret_bounds_description_length"]["verdict"] == "inconclusive"
    assert "a theorem" in doc["expected_regret_bounds_description_length"]["why_inconclusive"]


def test_regret_against_baselines_is_a_paired_bootstrap_per_task_and_baseline():
    """dist_init anti-correlates with the error, the L2 norm is noise, the final train loss constant (r NaN): in the
    regime-only runs the regret (r = 1) beats the first two clearly; a NaN baseline leaves its test inconclusive."""
    runs = _runs()
    inside = runs[runs.train_err == 0.0]
    doc = _build(inside)
    tests = {t["name"]: t for t in doc["regret_beats_norms_and_train_loss"]["tests"]}
    assert len(tests) == 6
    assert tests["r(regret) - r(dist_init), c10proxy"]["outcome"] == "holds"
    assert tests["r(regret) - r(dist_init), c10proxy"]["measured"]["advantage"] == pytest.approx(2.0)
    assert tests["r(regret) - r(final_train_loss), c100proxy"]["outcome"] == "inconclusive"
    assert doc["regret_beats_norms_and_train_loss"]["verdict"] == "inconclusive"
    # a measure that tracks the error better than the regret: the regret's advantage interval lies below 0
    worse = runs.assign(l2_norm=runs.test_err)
    doc = _build(worse)
    tests = {t["name"]: t for t in doc["regret_beats_norms_and_train_loss"]["tests"]}
    assert tests["r(regret) - r(l2_norm), c10proxy"]["outcome"] == "fails"
    assert doc["regret_beats_norms_and_train_loss"]["verdict"] == "fails"


def test_paired_advantage_against_a_hand_bootstrap():
    rng = np.random.default_rng(5)
    runs = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30)})
    runs["y"] = runs.a + 0.5 * rng.normal(size=30)
    out = paper_claims.paired_advantage(runs, "a", "b", "y", 200, np.random.default_rng(9))
    idx = np.random.default_rng(9).integers(0, 30, size=(200, 30))
    boot = [stats.pearsonr(runs.a.values[i], runs.y.values[i])[0] - stats.pearsonr(runs.b.values[i], runs.y.values[i])[0]
            for i in idx]
    assert out["advantage"] == pytest.approx(stats.pearsonr(runs.a, runs.y)[0] - stats.pearsonr(runs.b, runs.y)[0])
    assert out["advantage_lo"] == pytest.approx(np.percentile(boot, 2.5))
    assert out["advantage_hi"] == pytest.approx(np.percentile(boot, 97.5))


def test_the_bound_negative_control_is_flagged_when_r_zero_is_not_violated():
    """Noise-free runs whose test error equals the training error: the bound with R = 0 is never violated, so the
    check is not shown able to fail and a bound that holds is inconclusive; with noisy runs it is violated."""
    runs = _runs().assign(bound=0.95, train_err=0.0)
    doc = _build(runs.assign(test_err=0.0))
    assert doc["pac_mdl_bound"]["outcome"] == "holds" and doc["pac_mdl_bound"]["verdict"] == "inconclusive"
    assert doc["pac_mdl_bound"]["controls"][0]["passed"] is False
    doc = _build(runs.assign(test_err=0.5))
    assert doc["pac_mdl_bound"]["controls"][0]["passed"] is True and doc["pac_mdl_bound"]["verdict"] == "holds"
    zero = doc["pac_mdl_bound"]["controls"][0]["test"]["measured"]
    assert zero["violations"] == ((runs.noise > 0) & (runs.train_err == 0)).sum()  # sqrt(ln 20 / 2n) < 0.5, n >= 100


def test_too_few_interpolating_runs_leave_the_regime_claim_inconclusive():
    runs = _runs()
    runs.loc[runs.seed > 4, "train_err"] = 0.5  # 3 regime runs per task, fewer than claims.min_runs = 5
    entry = _build(runs)["regret_tracks_test_error"]
    assert [t["measured"]["runs"] for t in entry["tests"]] == [3, 3] and entry["verdict"] == "inconclusive"


def test_a_run_stopped_at_exactly_the_target_accuracy_is_in_the_regime():
    from neurips26.papers.prequential_mdl.tables import interpolating

    runs = pd.DataFrame({"train_err": [1 - 0.99, 0.0, 0.0100001]})
    assert interpolating(runs, CFG).tolist() == [True, True, False]


def test_a_task_without_regime_runs_never_hides_a_failing_task():
    """One task has no regime run (NaN): the claim is inconclusive when the other holds, and fails when the other
    fails (a NaN task never turns a false part into null)."""
    runs = _runs()
    runs.loc[runs.task == "c10proxy", "train_err"] = 0.5
    entry = _build(runs)["regret_tracks_test_error"]
    assert entry["verdict"] == "inconclusive" and "c10proxy" in entry["why_inconclusive"]
    flipped = runs.copy()
    inside = (flipped.task == "c100proxy") & (flipped.train_err == 0.0)
    flipped.loc[inside, "regret_per_example"] = -flipped.loc[inside, "test_err"]  # r = -1 in the regime
    assert _build(flipped)["regret_tracks_test_error"]["verdict"] == "fails"


def test_the_bootstrap_follows_the_seed_set():
    runs = _runs()
    one, again = table_correlations(runs, CFG), table_correlations(runs, CFG)
    other = table_correlations(runs, OmegaConf.merge(CFG, {"seeds": [3]}))
    pd.testing.assert_frame_equal(one, again)
    assert not one.pearson_lo.equals(other.pearson_lo) and one.pearson.equals(other.pearson)


def test_no_regime_run_anywhere_is_inconclusive_naming_the_scale():
    """No task can be computed: the regime claim is untested (inconclusive) and says which scale decides it; the
    all-runs claim is still judged."""
    doc = _build(_runs().assign(train_err=0.5))
    entry = doc["regret_tracks_test_error"]
    assert entry["verdict"] == "inconclusive" and "decided at scale=long" in entry["why_inconclusive"]
    assert doc["regret_tracks_test_error_all_runs"]["verdict"] == "fails"


def test_one_task_false_and_the_other_missing_is_false():
    runs = _runs()
    runs = runs[~((runs.task == "c10proxy") & (runs.train_err == 0.0))]  # c10proxy: no regime run at all
    inside = (runs.task == "c100proxy") & (runs.train_err == 0.0)
    runs.loc[inside, "regret_per_example"] = -runs.loc[inside, "test_err"]
    entry = _build(runs)["regret_tracks_test_error"]
    assert [t["outcome"] for t in entry["tests"]] == ["inconclusive", "fails"] and entry["verdict"] == "fails"


def test_the_bound_is_judged_over_the_regime_runs_with_all_runs_beside_it():
    """A violation outside the regime is shown (all_runs_violations) but does not decide the claim; one inside does."""
    runs = _runs().assign(bound=0.95, test_err=0.5)
    outside = runs.train_err > 0.01
    runs.loc[outside & (runs.seed == 1), "bound"] = 0.4  # below the test error, outside the regime
    entry = _build(runs)["pac_mdl_bound"]
    assert entry["verdict"] == "holds" and entry["tests"][0]["measured"]["violations"] == 0
    assert entry["measured"]["all_runs_violations"] == 2 and entry["tests"][0]["measured"]["runs"] == 12
    assert entry["statistic"]["estimate"] == pytest.approx(0.45)  # the median slack leads
    runs.loc[~outside & (runs.seed == 2), "bound"] = 0.4
    assert _build(runs)["pac_mdl_bound"]["verdict"] == "fails"


def test_the_bound_negative_control_reads_only_the_noisy_regime_runs():
    """R = 0 is violated on the noisy regime runs; on noise-free runs alone there is nothing to violate and the
    control is missing or not passed, so a bound that holds is inconclusive."""
    runs = _runs().assign(bound=0.95, test_err=0.5)
    control = _build(runs)["pac_mdl_bound"]["controls"][0]
    noisy_regime = ((runs.train_err == 0) & (runs.noise > 0)).sum()
    assert control["passed"] is True and control["test"]["measured"]["runs"] == noisy_regime
    clean = _build(runs.assign(noise=0.0))["pac_mdl_bound"]
    assert clean["controls"][0]["passed"] is not True and clean["verdict"] == "inconclusive"


def test_the_tracking_claims_are_decided_at_long_and_the_bound_at_default():
    """Default's 18 runs a task give r's interval a half-width near 0.1 at r = 0.9: its tracking verdicts are
    inconclusive naming long (the outcome of the tests is still shown); the bound, a rule over runs, is judged."""
    doc = _build(_runs(), scale="default")
    for claim in ("regret_tracks_test_error", "regret_tracks_test_error_all_runs"):
        assert doc[claim]["verdict"] == "inconclusive" and doc[claim]["decided_at"] == "long"
        assert "decided at scale=long" in doc[claim]["why_inconclusive"]
    assert doc["regret_tracks_test_error"]["outcome"] == "holds"
    assert doc["regret_tracks_test_error_all_runs"]["outcome"] == "fails"
    assert doc["pac_mdl_bound"]["decided_at"] == "default" and doc["pac_mdl_bound"]["verdict"] == "fails"

"""wd_eos measures and positive controls: the oscillation and loss measures on hand-made traces, the control model's
exact Hessian against autograd, and the controls passing (and able to fail) under the claims' criteria."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from neurips26.common.pipeline.config import compose
from neurips26.papers.wd_eos import controls, paper_claims, summary


def test_eos_oscillation_closed_form():
    steps = np.arange(0, 80, 10)
    # square wave of half-width 1 around 2/eta = 10 once at the EoS: every change is 2 -> amplitude 2 / 10
    sharp = np.array([5, 7, 9, 10.5, 9.5, 10.5, 9.5, 10.5])
    onset, amp = summary.eos_oscillation(steps, sharp, threshold=10.0, two_over_eta=10.0)
    assert onset == 30 and amp == pytest.approx(0.1)
    # a steady drift above the threshold has an amplitude equal to its slope per checkpoint, not its spread
    onset, amp = summary.eos_oscillation(steps, np.array([10, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7]), 10.0, 10.0)
    assert onset == 0 and amp == pytest.approx(0.01)
    assert np.isnan(summary.eos_oscillation(steps, np.full(8, 9.0), 10.0, 10.0)[0])
    assert np.isnan(summary.eos_oscillation(steps, np.r_[np.full(7, 9.0), 11.0], 10.0, 10.0)[1])  # one point only


def test_a_censored_run_is_never_imputed():
    """Issue #71 items 2 and 7: a run that never reaches the level has no sharpening time and no rate (NaN), only a
    bound (time > last step; rate < (threshold - S_0) / last step), and the censored Kendall tau counts it only in
    the pairs its bound orders; imputing the bound as a value would order every pair."""
    steps = np.array([0, 20, 40])
    assert summary.sharpening_time(steps, np.array([1, 9.5, 11]), 9.0) == (20.0, True)
    time, reached = summary.sharpening_time(steps, np.array([1, 2, 3]), 9.0)
    assert np.isnan(time) and not reached
    assert summary.sharpening_rate(steps, np.array([1, 9.5, 11]), 10.0) == (9 / 40, pytest.approx(np.nan, nan_ok=True),
                                                                           False)
    rate, bound, censored = summary.sharpening_rate(steps, np.array([1, 2, 3]), 10.0)
    assert np.isnan(rate) and bound == pytest.approx(9 / 40) and censored
    assert np.isnan(summary.sharpening_rate(steps, np.array([11, 12, 13]), 10.0)[0])  # above from the start: missing
    trace = pd.DataFrame({"arch": "mlp", "decay": "coupled", "eta": 0.2, "wd": 0.01, "seed": 300, "step": steps,
                          "sharpness": [1.0, 2.0, 3.0], "threshold": 9.99, "alignment": 0.1, "kernel_velocity": 1e-6,
                          "loss": 0.1, "loss_rise": 0.0, "accuracy": 0.9})
    row = summary.summarise_run(trace, 0.9, 0.33)
    assert np.isnan(row["sharpening_time"]) and row["sharpening_time_bound"] == 40
    assert np.isnan(row["sharpening_rate"]) and row["rate_censored"]
    # lambdas 0, 1, 2: observed rates 0.3 and 0.2, then a run censored below 0.25: the pair (0.3, <0.25) is a sure
    # decrease, (0.2, <0.25) is open; imputing 0.25 would make it an increase
    x, value, bnd, cens = [0, 1, 2], [0.3, 0.2, np.nan], [np.nan, np.nan, 0.25], [False, False, True]
    assert paper_claims.censored_kendall(x, value, bnd, cens, "upper") == pytest.approx((-1 - 1 + 0) / 3)
    imputed = paper_claims.censored_kendall(x, [0.3, 0.2, 0.25], bnd, [False] * 3, "upper")
    assert imputed == pytest.approx((-1 - 1 + 1) / 3)
    # a time censored above its bound: the lower side
    assert paper_claims.censored_kendall(x, [100, 200, np.nan], [np.nan, np.nan, 400], cens, "lower") == 1.0


def test_loss_oscillation_counts_relative_increases_after_the_onset():
    trace = pd.DataFrame({"step": [0, 10, 20, 30], "loss_rise": [0.0, 0.5, 0.2, 0.4]})
    assert summary.loss_oscillation(trace, 10.0) == pytest.approx((0.2 + 0.4) / 20)
    assert np.isnan(summary.loss_oscillation(trace, float("nan")))


def test_deep_scalar_hessian_matches_autograd():
    w = np.array([0.7, -1.3, 0.4])

    def loss(v):
        return 0.5 * (v.prod() - controls.TARGET) ** 2

    reference = torch.autograd.functional.hessian(loss, torch.tensor(w, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(controls.deep_scalar_hessian(w), reference, rtol=1e-12, atol=1e-12)
    # at the balanced minimum the sharpness is D y^(2(D-1)/D) = 3
    top = np.linalg.eigvalsh(controls.deep_scalar_hessian(np.ones(3)))[-1]
    assert top == pytest.approx(3.0)


def test_deep_scalar_network_sharpens_more_slowly_with_weight_decay():
    eta = 2.0 / controls.CONTROL_TWO_OVER_ETA
    times = [summary.sharpening_time(t.step.to_numpy(), t.sharpness.to_numpy(), 0.9 * 2 / eta)
             for t in (controls.deep_scalar_trace(eta, wd, 300) for wd in (0.0, 0.01, 0.02))]
    assert all(reached for _, reached in times)
    assert times[0][0] < times[1][0] < times[2][0]


@pytest.mark.parametrize("scale", ["default", "tiny"])
def test_positive_controls_hold(scale):
    pcs = paper_claims.positive_controls(compose("wd_eos", [f"scale={scale}"]))
    assert pcs["sharpening_slows"].passed() is True and pcs["sharpening_slows"].test.n == 3
    assert pcs["cnn_damped_oscillations"].passed() is True and pcs["cnn_damped_oscillations"].test.n == 3


def _runs(traces, cfg, windows=None):
    """The run table the claims stage reads (tables/runs.csv) from traces."""
    s = cfg.summary
    return summary.run_table(traces, s.sharpening_fraction, s.late_fraction, windows)


def test_oscillation_criterion_fails_on_growing_oscillations():
    """The control's test is not vacuous: oscillations that grow with lambda fail it; sharpness that never reaches
    2/eta has no EoS amplitude, so the test has no seed values (a control on it would be missing, not passed)."""
    cfg = compose("wd_eos", [])
    wds = [0.0, 0.002, 0.005, 0.01]
    growing = _runs(controls.oscillation_traces(0.03, wds, 600, 30, damping=-0.2), cfg)
    test = paper_claims.amplitude_test(growing)
    assert test.n == 3 and all(v > 0 for v in test.per_seed.values()) and test.outcome()[0] == "fails"
    low = _runs(controls.oscillation_traces(0.03, wds, 600, 30, start=0.3, onset=10_000), cfg)
    test = paper_claims.amplitude_test(low)
    assert test.n == 0 and not test.has_data() and test.outcome()[0] == "inconclusive"


def _capped(wds, late_seeds, onset_late, cap=1500, freq=30, window=8):
    """Control traces cut by the rule, where `late_seeds` enter the EoS at `onset_late` at the largest lambda."""
    parts = []
    for wd in wds:
        for i, variant in enumerate(controls.CONTROL_SEEDS):
            onset = onset_late if (wd == max(wds) and i in late_seeds) else 510
            trace = controls.damped_eos_trace(0.03, wd, cap, freq, "cnn", onset=onset, seed=i, **variant)
            parts.append(controls.stop_by_rule(trace, window))
    return pd.concat(parts, ignore_index=True)


def test_runs_without_an_eos_window_are_excluded_and_counted():
    """The pre-registered rule: a run that does not meet the stopping rule before the cap is left out of the amplitude
    at every lambda (its seed is missing from the test, never imputed); with fewer than 3 seeds left the claim is
    inconclusive (claims contract v2), with the reason."""
    cfg = compose("wd_eos", [])
    s, wds = cfg.summary, [0.0, 0.002, 0.005, 0.01]
    # seed 2 (the largest swings) reaches the EoS too late at lambda = 0.01: dropped everywhere
    one_late = _capped(wds, {2}, 1450)
    table = summary.main_table(one_late, s.sharpening_fraction, s.late_fraction, {"cnn": 8})
    assert set(table.eos_common_seeds) == {2} and table.eos_complete_fraction.min() == pytest.approx(2 / 3)
    runs = _runs(one_late, cfg, {"cnn": 8})
    test = paper_claims.amplitude_test(runs)
    assert test.per_seed["2"] is None and test.n == 2 and all(test.per_seed[k] < 0 for k in ("0", "1"))
    assert test.outcome()[0] == "inconclusive" and "2 seed value(s)" in test.outcome()[1]
    # seeds 0 and 1 never get there at lambda = 0.01 (the flip of the 1500-step runs): one seed left
    two_late = _capped(wds, {0, 1}, 10_000)
    runs = _runs(two_late.assign(seed=two_late.seed + 300), cfg, {"cnn": 8})  # fresh seeds (the claims refuse 0-99)
    main = summary.aggregate(runs, {"cnn": 8})
    claims, m = paper_claims.build(main, runs, cfg), paper_claims.measure(main, runs, cfg)
    entry = next(c for c in claims if c.id == "cnn_damped_oscillations").to_json("default", "embedded")
    assert m["cnn_eos_common_seeds"] == 1 and entry["tests"][0]["n"] == 1
    assert entry["verdict"] == "inconclusive" and entry["holds"] is None
    assert "1 seed value(s)" in entry["why_inconclusive"]


def test_per_seed_log_change_closed_form():
    """The per-seed trend: least-squares slope of log(value) on lambda x the lambda range; exact log-linear data give
    it exactly whatever the seed's level; fewer than two positive values give NaN (the seed is missing)."""
    wds = np.array([0.0, 0.002, 0.005, 0.01])
    exact = pd.DataFrame([{"seed": s, "wd": w, "v": (1 + 3 * s) * np.exp(-50 * w)} for s in range(3) for w in wds])
    np.testing.assert_allclose(list(paper_claims.log_change_by_seed(exact, "v").values()), [-0.5] * 3)
    # hand-computed: y = log v = [0, -1, 0, -1] at lambda = [0, 1, 2, 3] x 1e-3: slope -0.2 per 1e-3, range 3e-3
    one = pd.DataFrame({"seed": 0, "wd": [0.0, 0.001, 0.002, 0.003], "v": np.exp([0.0, -1.0, 0.0, -1.0])})
    assert paper_claims.log_change(one, "v") == pytest.approx(-0.6)
    assert np.isnan(paper_claims.log_change(one.assign(v=[1.0, np.nan, 0.0, -1.0]), "v"))


def test_eos_stopping_rule_closed_form():
    """The rule stops `window` checkpoints after the first checkpoint with S >= threshold, and not before."""
    from neurips26.papers.wd_eos.grid import eos_onset_index, eos_stop_index

    sharp = [5.0, 8.0, 10.5, 9.0, 11.0, 9.5, 10.0]
    assert eos_onset_index(sharp, 10.0) == 2
    assert eos_stop_index(sharp, 10.0, 3) == 5
    assert eos_stop_index(sharp[:5], 10.0, 3) is None  # only two checkpoints after the onset so far
    assert eos_stop_index(sharp, 12.0, 1) is None and eos_stop_index(sharp, 10.0, None) is None


def test_late_window_of_a_stopped_arch_is_its_eos_window():
    """With a rule of k checkpoints the plateau and kernel velocity are the means over the last k + 1 checkpoints; the
    run counts as complete only when the rule was met."""
    trace = controls.damped_eos_trace(0.2, 0.0, 300, 10, "cnn", onset=100)
    trace = trace.assign(kernel_velocity=np.arange(len(trace), dtype=float))
    cut = controls.stop_by_rule(trace, 5)
    assert cut.step.iloc[-1] == 150 and len(cut) == 16
    row = summary.summarise_run(cut, 0.9, 0.33, eos_window=5)
    assert row["eos_onset"] == 100 and row["eos_complete"]
    assert row["plateau"] == pytest.approx(cut.sharpness.iloc[-6:].mean())
    assert row["kernel_velocity"] == pytest.approx(cut.kernel_velocity.iloc[-6:].mean())
    assert not summary.summarise_run(trace.iloc[:13], 0.9, 0.33, eos_window=5)["eos_complete"]  # capped too early
    table = summary.main_table(pd.concat([cut, trace.iloc[:13].assign(seed=1)]), 0.9, 0.33, {"cnn": 5})
    assert table.eos_complete_fraction.iloc[0] == 0.5 and table.eos_reached_fraction.iloc[0] == 1.0


def test_positive_control_is_cut_by_the_configured_rule():
    cfg = compose("wd_eos", [])
    steps, freq = 1800, 30
    assert (cfg.grid.cnn.max_steps, cfg.grid.cnn.eig_freq, cfg.grid.cnn.eos_checkpoints) == (steps, freq, 8)
    traces = controls.oscillation_traces(float(max(cfg.grid.cnn.etas)), list(cfg.grid.cnn.wds), steps, freq, 8)
    assert set(traces.groupby(["wd", "seed"]).step.max()) == {600 + 8 * freq}  # onset at steps // 3, every seed


def _mlp_trace(sharpness, steps, wd=0.01):
    return pd.DataFrame({"arch": "mlp", "decay": "coupled", "eta": 0.2, "wd": wd, "seed": 300, "step": steps,
                         "sharpness": sharpness, "threshold": 10.0 - wd, "alignment": 0.1, "kernel_velocity": 1e-6,
                         "loss": 0.1, "loss_rise": 0.0, "accuracy": 0.9})


def test_a_slowly_sharpening_series_is_not_a_plateau():
    """Issue #71 items 3 and 7: S that still creeps up (0.2 per 100 steps, swings of 0.02) over the late window is not
    flat, so it has no plateau; the same swings around a constant are flat. The slope's interval is the t interval of
    least squares (closed form checked on exact data)."""
    steps = np.arange(0, 420, 20)
    noise = 0.02 * np.where(np.arange(len(steps)) % 2, 1.0, -1.0)  # a swing with no trend
    creeping = summary.summarise_run(_mlp_trace(4.0 + 0.002 * steps + noise, steps), 0.9, 0.33)
    assert not creeping["flat"] and creeping["late_slope_lo"] > 0
    level = summary.summarise_run(_mlp_trace(4.0 + noise, steps), 0.9, 0.33)
    assert level["flat"] and level["late_slope_lo"] <= 0 <= level["late_slope_hi"]
    slope, lo, hi = summary.final_slope(np.arange(5.0), 2.0 + 0.5 * np.arange(5.0))
    assert (slope, lo, hi) == (pytest.approx(0.5), pytest.approx(0.5), pytest.approx(0.5))
    assert np.isnan(summary.final_slope(np.arange(2.0), np.arange(2.0))[0])


def test_sharpening_control_can_fail():
    """The positive control's test (per-seed censored Kendall tau of the rate, interval below 0) fails when the rate
    rises with lambda (the control's lambdas reversed) and is missing when no run reaches the onset."""
    cfg = compose("wd_eos", [])
    wds = list(cfg.grid.mlp.wds)
    runs = paper_claims.control_runs(controls.sharpening_traces(wds), cfg)
    assert paper_claims.sharpening_test(runs, "mlp").outcome()[0] == "holds"
    flipped = runs.assign(wd=runs.wd.map(dict(zip(wds, wds[::-1]))))
    assert paper_claims.sharpening_test(flipped, "mlp").outcome()[0] == "fails"
    never = runs.assign(sharpening_rate=np.nan, rate_censored=True, sharpening_rate_bound=1.0)
    test = paper_claims.sharpening_test(never, "mlp")
    assert test.n == 3 and all(v == 0 for v in test.per_seed.values()) and test.outcome()[0] == "inconclusive"


def test_onsets_in_the_same_checkpoint_interval_are_not_ordered():
    """The mistake the pre-registered run showed (JOURNAL.md): S is seen only at checkpoints, so an onset at checkpoint
    k means a crossing in (t_(k-1), t_k] and a rate in [rise / t_k, rise / t_(k-1)). Two lambdas whose onsets fall in
    the same interval have no certain order, however the threshold 2/eta - lambda shifts the point rates; an onset one
    checkpoint later is a certain decrease."""
    steps = np.arange(0, 200, 30.0)
    sharp = np.array([20, 30, 40, 50.5, 51, 50, 51])
    lo0, hi0 = summary.sharpening_rate(steps, sharp, 50.0)[0], summary.sharpening_rate_upper(steps, sharp, 50.0)
    lo1, hi1 = summary.sharpening_rate(steps, sharp, 49.99)[0], summary.sharpening_rate_upper(steps, sharp, 49.99)
    assert (lo0, hi0) == (pytest.approx(30 / 90), pytest.approx(30 / 60)) and lo1 < lo0
    assert paper_claims.censored_kendall([0, 0.01], [lo0, lo1], [np.nan] * 2, [False] * 2, "upper") == -1.0  # point
    assert paper_claims.censored_kendall([0, 0.01], [lo0, lo1], [np.nan] * 2, [False] * 2, "upper", [hi0, hi1]) == 0
    late = np.array([20, 30, 40, 45, 50.5, 51, 50])
    lo2, hi2 = summary.sharpening_rate(steps, late, 49.99)[0], summary.sharpening_rate_upper(steps, late, 49.99)
    assert paper_claims.censored_kendall([0, 0.01], [lo0, lo2], [np.nan] * 2, [False] * 2, "upper", [hi0, hi2]) == -1
    assert summary.sharpening_rate_upper(steps, np.r_[49.0, np.full(6, 51.0)], 50.0) == np.inf

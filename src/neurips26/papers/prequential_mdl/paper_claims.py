"""The paper's claims (claims contract v2), measured from tables/correlations.csv, tables/bound.csv, tables/runs.csv
and the positive control's runs (tables/control_runs.csv); thresholds come from `claims` in the config.

Every statistic here is a correlation over the runs of a sweep (every trained network is one point), not a mean over
seeds: a task has 6 runs per seed at default scale, fewer than `claims.min_runs`, so a per-seed correlation is not
computed. Each claim is therefore a set of `RuleTest`s on percentile bootstrap intervals over runs (one test per task,
and per baseline), each with its rule stated; a task without enough runs is inconclusive, never false or hidden.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, RuleTest
from neurips26.papers.prequential_mdl.correlations import bootstrap_rng, bootstrap_seed, correlate, pearson_rows
from neurips26.papers.prequential_mdl.tables import interpolating

TASKS = ("c10proxy", "c100proxy")
LEVEL = 0.95


def _row(corr: pd.DataFrame, task: str, target: str, measure: str, subset: str) -> dict:
    rows = corr[(corr.task == task) & (corr.subset == subset) & (corr.target == target) & (corr.measure == measure)]
    if not len(rows):
        return {"pearson": float("nan"), "pearson_lo": float("nan"), "pearson_hi": float("nan"), "runs": 0}
    r = rows.iloc[0]
    return {"pearson": float(r.pearson), "pearson_lo": float(r.pearson_lo), "pearson_hi": float(r.pearson_hi),
            "runs": int(r.runs), "spearman": float(r.spearman), "kendall": float(r.kendall)}


def tracking_test(name: str, stats: dict, threshold: float, min_runs: int) -> RuleTest:
    """Pearson r with its 95% bootstrap interval over runs against the threshold; fewer than min_runs runs (or no
    coefficient) is inconclusive."""
    measured = {"pearson": stats["pearson"], "pearson_lo": stats["pearson_lo"], "pearson_hi": stats["pearson_hi"],
                "runs": stats["runs"]}
    return RuleTest(name, measured, holds_if=f"runs >= {min_runs} and pearson_lo > {threshold}",
                    fails_if=f"runs >= {min_runs} and pearson_hi < {threshold}",
                    rule=f"Pearson r over runs with its {LEVEL:.0%} percentile bootstrap interval (runs resampled): "
                         f"holds if the interval lies above {threshold}, fails if below, with at least {min_runs} "
                         "runs; otherwise inconclusive")


def control_stats(control: pd.DataFrame, cfg, subset: str) -> dict:
    """The tracking statistic on the positive control's runs (regret and noisy-label test error tied by
    construction): Pearson r(R / n, test_err) with its bootstrap interval over the control's runs (all, or those in
    the interpolating regime)."""
    part = control[interpolating(control, cfg)] if subset == "interpolating" else control
    column, target = str(cfg.measures.regret), str(cfg.claims.target)
    if len(part) < 3:
        return {"pearson": float("nan"), "pearson_lo": float("nan"), "pearson_hi": float("nan"), "runs": len(part)}
    seed = bootstrap_seed(cfg, f"control {subset}")
    stats = correlate(part[column].to_numpy(float), part[target].to_numpy(float), int(cfg.bootstrap.resamples), seed)
    return {"pearson": stats["pearson"], "pearson_lo": stats["pearson_lo"], "pearson_hi": stats["pearson_hi"],
            "runs": len(part)}


def _tracking(corr: pd.DataFrame, control: pd.DataFrame, cfg, subset: str) -> Claim:
    c, target = cfg.claims, str(cfg.claims.target)
    threshold, min_runs = float(c.pearson_threshold), int(c.min_runs)
    tests, extra, counts = [], {}, []
    for task in TASKS:
        stats = _row(corr, task, target, "regret", subset)
        tests.append(tracking_test(f"r(R / n, {target}), {task}", stats, threshold, min_runs))
        extra.update({f"spearman_{task}": stats.get("spearman"), f"kendall_{task}": stats.get("kendall")})
        counts.append(stats["runs"])
    regime = subset == "interpolating"
    # Untested only when no task can be computed at all; one task without runs leaves the other's verdict standing.
    where = (f"(nearly) interpolating regime (training error <= {cfg.regime.max_train_err})" if regime
             else "end of training")
    untested = None if any(counts) else (
        f"no run of either task reached the {where} at scale={cfg.get('scale_name', '?')}: nothing to correlate; "
        "decided at scale=long, whose design reaches the regime on both tasks (JOURNAL.md, issue #68)")
    scope = ("runs in the (nearly) interpolating regime (training error <= "
             f"{cfg.regime.max_train_err} on the noisy training labels), the regime the abstract's bound is stated for"
             if regime else "all runs of the fixed sweep, interpolating or not")
    control_setting = (f"{len(cfg.control.noise)} label-noise levels x {len(cfg.seeds)} seeds of a linear student "
                       "on one-hot-signal inputs with enough extra dimensions to memorise any labels: the noisy "
                       "labels are the only unpredictable bits of the online code and the only source of test errors "
                       "beyond the clean rule, so R / n and the noisy-label test error rise together by construction; "
                       "the same test must hold there")
    positive = Control("tied_by_construction", "positive", control_setting,
                       tracking_test(f"r(R / n, {target}), control", control_stats(control, cfg, subset), threshold,
                                     min_runs))
    return Claim(
        "regret_tracks_test_error" if regime else "regret_tracks_test_error_all_runs",
        f"the prequential regret (R / n) tracks the test error with Pearson correlation > {threshold} on the CIFAR-10 "
        f"and CIFAR-100 stand-ins, over {scope} (every run is one point)",
        f"per task, Pearson r(R / n, {target}) over {'the regime runs' if regime else 'all runs'} with its 95% "
        f"percentile bootstrap interval over runs: holds if every task's interval lies above {threshold} (at least "
        f"{min_runs} runs each), fails if one task's lies below; a task with fewer runs is inconclusive",
        tests, ["tables/correlations.csv", "tables/control_runs.csv", "figures/regret_vs_testerr_c10proxy.png",
                "figures/regret_vs_testerr_c100proxy.png"],
        source="abstract" if regime else "brief", controls=[positive], measured=extra, why_not_tested=untested,
        # issue #68 item 3: an interval of r near 0.9 with half-width <= 0.05 needs about 60 runs a task (Fisher's z);
        # default has 18, long 72 (scale/long.yaml), so long decides and default's verdict is inconclusive
        decided_at="long",
        paper_value={"value": threshold, "where": "abstract: 'tracks the generalization error on CIFAR-10 and "
                     "CIFAR-100, with Pearson correlations exceeding 0.9' (the paper's per-task values are not in any "
                     "source the project can reach)"})


def paired_advantage(runs: pd.DataFrame, measure: str, baseline: str, target: str, resamples: int,
                     generator: np.random.Generator, level: float = LEVEL) -> dict:
    """r(measure, target) - r(baseline, target) over the same runs, with its percentile bootstrap interval (the same
    resampled runs for both coefficients: a paired bootstrap)."""
    x, b, y = (runs[col].to_numpy(float) for col in (measure, baseline, target))
    if len(y) < 3:
        return {"advantage": float("nan"), "advantage_lo": float("nan"), "advantage_hi": float("nan"),
                "runs": len(y)}
    point = float(pearson_rows(x, y) - pearson_rows(b, y))
    idx = generator.integers(0, len(y), size=(resamples, len(y)))
    boot = pearson_rows(x[idx], y[idx]) - pearson_rows(b[idx], y[idx])
    boot = boot[~np.isnan(boot)]
    tail = 100 * (1 - level) / 2
    lo, hi = np.percentile(boot, [tail, 100 - tail]) if len(boot) else (float("nan"),) * 2
    return {"advantage": point, "advantage_lo": float(lo), "advantage_hi": float(hi), "runs": len(y)}


def _better(runs: pd.DataFrame, cfg) -> Claim:
    c, target = cfg.claims, str(cfg.claims.target)
    regret = str(cfg.measures.regret)
    tests = []
    for task in TASKS:
        part = runs[runs.task == task]
        for name in c.baselines:
            stats = paired_advantage(part, regret, str(cfg.measures[name]), target, int(cfg.bootstrap.resamples),
                                     bootstrap_rng(cfg, f"advantage {task} {name}"))
            tests.append(RuleTest(f"r(regret) - r({name}), {task}", stats, holds_if="advantage_lo > 0",
                                  fails_if="advantage_hi < 0",
                                  rule=f"paired {LEVEL:.0%} percentile bootstrap over all runs of the task of r(R / n, "
                                       f"{target}) - r({name}, {target}): holds if the interval lies above 0, fails "
                                       "if below, otherwise inconclusive"))
    return Claim(
        "regret_beats_norms_and_train_loss",
        f"the regret correlates better with the test error than the norm-based measures and the final training loss "
        f"({', '.join(c.baselines)}; signed Pearson, measures oriented so that larger = predicted worse)",
        f"per task and baseline ({', '.join(c.baselines)}), over all runs: the paired bootstrap interval of "
        f"r(R / n, {target}) - r(baseline, {target}) above 0 (all six must hold; one below 0 fails)",
        tests, ["tables/correlations.csv", "tables/runs.csv", "figures/measure_correlations.png"], source="brief",
        paper_value={"value": None, "where": "the brief's criterion ('R correlates better than norm-based measures "
                     "and final train loss'); the paper is not in any source the project can reach"})


def bound_counts(bound: pd.DataFrame, column: str = "bound") -> dict:
    """The median and smallest slack (bound - test error) of a bound over runs, its violations (below the measured
    test error), non-vacuous runs (< 1) and runs; the median slack first (the entry's estimate)."""
    values = bound[column]
    slack = values - bound.test_err
    return {"median_slack": float(slack.median()) if len(bound) else float("nan"),
            "min_slack": float(slack.min()) if len(bound) else float("nan"),
            "violations": int((values < bound.test_err).sum()), "non_vacuous_runs": int((values < 1.0).sum()),
            "runs": len(bound)}


def _bound_test(name: str, counts: dict) -> RuleTest:
    return RuleTest(name, counts, holds_if="runs >= 1 and non_vacuous_runs >= 1 and violations == 0",
                    fails_if="runs >= 1 and (non_vacuous_runs == 0 or violations >= 1)",
                    rule="a bound over every run, not a mean: holds if it is < 1 for at least one run and never below "
                         "the measured test error; fails if it is vacuous everywhere or below the test error on one "
                         "run")


def _occam(bound: pd.DataFrame, cfg) -> Claim:
    """The bound over the runs in the regime the theorem is stated for (training error <= regime.max_train_err); all
    runs are a separate row in `measured`. Negative control: R = 0, a description length known to be too short,
    on the noisy regime runs, where the test error is at least the label noise's share and the training error about
    0, so the reduced bound err_train + sqrt(ln(1/delta) / 2n) must be violated: the check is shown able to fail."""
    delta = float(cfg.bound.delta)
    regime = bound[interpolating(bound, cfg)]
    noisy = regime[regime.noise > 0]
    zero = noisy.assign(zero_bound=noisy.train_err + np.sqrt(math.log(1 / delta) / (2 * noisy.n)))
    negative = Control(
        "zero_description_length", "negative", "the same check on the noisy regime runs with a description length "
        "known to be too short (R = 0: the bound reduced to err_train + sqrt(ln(1/delta) / 2n)); it must be violated, "
        "so that the check is shown able to fail",
        # no noisy regime run: nothing could be violated, so the control is missing (not passed)
        _bound_test("bound with R = 0 on the noisy regime runs", bound_counts(zero, "zero_bound")) if len(zero)
        else None)
    every = {f"all_runs_{k}": v for k, v in bound_counts(bound).items()}
    return Claim(
        "pac_mdl_bound",
        f"the description length translates into a high-probability generalization bound in the PAC-MDL setting: "
        f"err_train + sqrt((R ln 2 + ln(1/delta)) / 2n) (delta = {delta}) is non-vacuous (< 1) for some runs and lies "
        "above the measured test error for every run in the (nearly) interpolating regime the theorem is stated for",
        f"over the runs of both tasks with training error <= {cfg.regime.max_train_err}: the bound is < 1 for at least "
        "one run and >= the measured test error for all (a rule over runs; median and smallest slack shown; all runs "
        "as a separate row, all_runs_*); negative control: with R = 0 the same check on the noisy regime runs must "
        "not hold",
        [_bound_test("PAC-MDL bound over the regime runs: median slack", bound_counts(regime))],
        ["tables/bound.csv", "figures/regret_vs_testerr_c10proxy.png", "figures/regret_vs_testerr_c100proxy.png"],
        controls=[negative], measured=every,
        paper_value={"value": None, "where": "abstract (a theorem: 'a high-probability generalization bound in the "
                     "PAC-MDL setting'; no number)"})


def _theorems() -> list[Claim]:
    theory = Claim(
        "expected_regret_bounds_description_length",
        "in the (nearly) interpolating regime the expected prequential regret upper-bounds the description length of "
        "the trained parameter under the algorithm-induced distribution", "a theorem: no numerical test", [],
        ["tables/bound.csv"],
        paper_value={"value": None, "where": "abstract (a theorem; the paper's statement is not in any reachable "
                     "source)"},
        why_not_tested="a theorem: the algorithm-induced distribution over network parameters has no computable "
                       "density here, so the description length itself cannot be measured; the bound claim "
                       "(pac_mdl_bound) checks its empirical consequence with the realised regret as a plug-in")
    ib = Claim(
        "ib_encoder_complexity_bounded_by_mdl",
        "the encoder-complexity correction of the algorithm-level information bottleneck is upper-bounded by an MDL "
        "parameter description length", "a theorem: no numerical test", [], ["tables/correlations.csv"],
        paper_value={"value": None, "where": "abstract (a theorem)"},
        why_not_tested="a theorem about mutual-information quantities in ultra-high dimension that the paper itself "
                       "avoids estimating; no embedded experiment measures it")
    return [theory, ib]


def build(corr: pd.DataFrame, bound: pd.DataFrame, control: pd.DataFrame, runs: pd.DataFrame, cfg) -> list[Claim]:
    return [_tracking(corr, control, cfg, "interpolating"), _tracking(corr, control, cfg, "all"), _better(runs, cfg),
            _occam(bound, cfg), *_theorems()]

"""Paired question-bootstrap intervals for the claims (issue #57 item 2). The unit is the question: each question of
each seed is asked of its own generated report (seeds draw different reports), and every agent answers the same
questions, so two agents are compared by the per-question score differences (paired). The statistic, a mean of those
differences (or a difference of two such means over disjoint question groups), gets a 95% percentile interval from
`scipy.stats.bootstrap` over questions resampled with replacement. A test holds when the interval lies above the bound,
fails when it lies below, and is inconclusive otherwise; a tie (every paired difference zero) is reported as a tie.
Questions of one report share the report, so the interval is somewhat narrower than a report-level one would be."""

from __future__ import annotations

import numpy as np

from neurips26.common.pipeline.resampled_test import ResampledIntervalTest, resampling_stream

LEVEL = 0.95
MIN_QUESTIONS = 10


def interval(samples: list[np.ndarray], resamples: int, seed: int) -> tuple[float, float, float]:
    """(estimate, low, high) of mean(samples[0]) - mean(samples[1]) (or mean(samples[0]) for one sample), each sample
    resampled on its own; the percentile method, as a BCa interval is undefined when most differences are 0."""
    from scipy.stats import bootstrap

    def statistic(*xs, axis=-1):
        return xs[0].mean(axis=axis) - (xs[1].mean(axis=axis) if len(xs) > 1 else 0.0)

    estimate = float(statistic(*samples))
    if all(np.ptp(s) == 0 for s in samples):  # no spread: the bootstrap distribution is the point itself
        return estimate, estimate, estimate
    res = bootstrap(
        tuple(samples),
        statistic,
        n_resamples=resamples,
        confidence_level=LEVEL,
        method="percentile",
        vectorized=True,
        random_state=np.random.default_rng(seed),
    )
    return estimate, float(res.confidence_interval.low), float(res.confidence_interval.high)


class QuestionTest(ResampledIntervalTest):
    """A RuleTest whose statistic is a paired question-bootstrap interval: `samples` is one array of per-question
    differences (a - b), or two (the statistic is the difference of their means: a gain on one question group minus
    the gain on another)."""

    count_key, level = "questions", LEVEL

    def __init__(
        self, name: str, samples: list, resamples: int, base_seed: int, bound: float = 0.0, per_seed: dict | None = None
    ):
        samples = [np.asarray(s, dtype=float) for s in samples]
        samples = [s[np.isfinite(s)] for s in samples]
        n = min(len(s) for s in samples)
        if n >= 2:
            estimate, low, high = interval(samples, resamples, resampling_stream(base_seed, name))
        else:
            estimate, low, high = float("nan"), float("nan"), float("nan")
        self.tie = n >= 2 and all(np.all(s == 0) for s in samples)
        rule = (
            f"{LEVEL:.0%} percentile question-bootstrap interval ({resamples} resamples of "
            f"{' and '.join(str(len(s)) for s in samples)} paired questions): holds if it lies above {bound:g}, "
            f"fails if below, inconclusive otherwise or with fewer than {MIN_QUESTIONS} questions"
        )
        super().__init__(
            name,
            {"estimate": estimate, "ci_low": low, "ci_high": high, "questions": n},
            f"questions >= {MIN_QUESTIONS} and ci_low > {bound}",
            f"questions >= {MIN_QUESTIONS} and ci_high < {bound}",
            rule,
            per_seed,
        )
        self.bound = float(bound)

    def outcome(self) -> tuple[str, str | None]:
        result, why = super().outcome()
        m = self.measured
        if result == "inconclusive" and self.tie:
            why = f"{self.name}: a tie (every one of the {int(m['questions'])} paired differences is 0)"
        elif result == "inconclusive" and self.has_data() and m["questions"] >= MIN_QUESTIONS:
            why = (
                f"{self.name}: the {LEVEL:.0%} question-bootstrap interval [{m['ci_low']:.4g}, {m['ci_high']:.4g}] "
                f"straddles the bound {self.bound:g}"
            )
        return result, why

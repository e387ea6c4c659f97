"""Page-bootstrap intervals for the claims. The unit is the page: every page of every seed is a different document
(seeds draw different pages), and each page is read under every condition, so the conditions are compared page by page
(paired). A statistic (a mean of per-page differences, or a ratio of such means) gets a 95% percentile interval over
pages resampled with replacement; the test holds when the interval lies on the claim's side of the bound, fails when
it lies on the other side, and is inconclusive otherwise or with fewer than MIN_PAGES pages."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from neurips26.common.pipeline.resampled_test import ResampledIntervalTest, resampling_stream

LEVEL = 0.95
MIN_PAGES = 3


def mean_of(column: str) -> Callable[[dict], np.ndarray]:
    """The statistic 'mean over pages of one column' (arrays of shape (..., pages))."""
    return lambda cols: cols[column].mean(axis=-1)


def ratio_of_means(numerator: str, denominator: str) -> Callable[[dict], np.ndarray]:
    """mean(numerator) / mean(denominator) over pages (NaN where the denominator's mean is 0)."""

    def statistic(cols):
        den = cols[denominator].mean(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den != 0, cols[numerator].mean(axis=-1) / np.where(den != 0, den, 1.0), np.nan)

    return statistic


def interval(pages: pd.DataFrame, statistic, resamples: int, seed: int) -> tuple[float, float, float, int]:
    """(estimate, low, high, pages): the statistic on all pages and its percentile interval over `resamples` page
    resamples; rows with a NaN in a used column are dropped first."""
    pages = pages.dropna()
    n = len(pages)
    if n == 0:
        return float("nan"), float("nan"), float("nan"), 0
    cols = {c: pages[c].to_numpy(float) for c in pages.columns}
    estimate = float(statistic(cols))
    if n < 2:
        return estimate, float("nan"), float("nan"), n
    index = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    draws = statistic({c: v[index] for c, v in cols.items()})
    draws = draws[np.isfinite(draws)]
    if len(draws) < resamples / 2:  # the statistic is undefined on most resamples (e.g. a zero denominator)
        return estimate, float("nan"), float("nan"), n
    low, high = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return estimate, float(low), float(high), n


class PageTest(ResampledIntervalTest):
    """A RuleTest whose statistic is a page-bootstrap interval; claims.json shows it with its interval and page count."""

    count_key, level = "pages", LEVEL

    def __init__(
        self,
        name: str,
        pages: pd.DataFrame,
        statistic,
        side: str,
        bound: float,
        resamples: int,
        base_seed: int,
        per_seed: dict | None = None,
        decided_by: str | None = None,
    ):
        if side not in (">", "<"):
            raise ValueError(f"PageTest {name!r}: side must be '>' or '<'")
        estimate, low, high, n = interval(pages, statistic, resamples, resampling_stream(base_seed, name))
        holds, fails = (
            (f"ci_low > {bound}", f"ci_high < {bound}") if side == ">" else (f"ci_high < {bound}", f"ci_low > {bound}")
        )
        rule = (
            f"{LEVEL:.0%} percentile page-bootstrap interval ({resamples} resamples of the {n} pages, paired "
            f"across conditions): holds if it lies {'above' if side == '>' else 'below'} {bound}, fails if it "
            f"lies on the other side, inconclusive otherwise or with fewer than {MIN_PAGES} pages"
        )
        super().__init__(
            name,
            {"estimate": estimate, "ci_low": low, "ci_high": high, "pages": n},
            f"pages >= {MIN_PAGES} and {holds}",
            f"pages >= {MIN_PAGES} and {fails}",
            rule,
            per_seed,
        )
        self.side, self.bound = side, float(bound)
        self.decided_by = decided_by  # the scale whose pages decide a straddling interval, named in the reason

    def outcome(self) -> tuple[str, str | None]:
        result, why = super().outcome()
        if result == "inconclusive" and self.has_data() and self.measured["pages"] >= MIN_PAGES:
            m = self.measured
            why = (
                f"{self.name}: the {LEVEL:.0%} page-bootstrap interval [{m['ci_low']:.4g}, {m['ci_high']:.4g}] "
                f"straddles the bound {self.bound}"
            )
            if self.decided_by:
                why += f"; inconclusive at this scale, {self.decided_by} decides it"
        return result, why

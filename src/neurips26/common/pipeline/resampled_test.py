"""A rule test decided by a resampling interval (a question or page bootstrap): the piece docatlas and docptbench share.

Each paper computes its own interval (what is resampled differs: questions, pages), then hands it here as
`measured = {estimate, ci_low, ci_high, <count>}`; this module gives every such test its own fixed random stream and
shows it in claims.json as an interval with its level and count, like a seed interval."""

from __future__ import annotations

import zlib

import numpy as np

from neurips26.common.pipeline.claims import RuleTest


def resampling_stream(base: int, name: str) -> int:
    """The resampling seed of one test: the configured base seed and a stable hash of the test's name, so that every
    test has its own fixed stream and adding a test changes no other test's interval."""
    return int(np.random.SeedSequence([base, zlib.crc32(name.encode())]).generate_state(1)[0])


class ResampledIntervalTest(RuleTest):
    """A RuleTest whose `measured` holds a resampling interval: estimate, ci_low, ci_high, and the number of resampled
    units under `count_key` (a subclass sets it, and `level`)."""

    count_key = "n"
    level = 0.95

    def statistic(self) -> dict:
        m = self.measured
        return {"name": self.name, "estimate": m["estimate"], "ci_low": m["ci_low"], "ci_high": m["ci_high"],
                "level": self.level, "n": int(m[self.count_key]), "rule": self.rule}

"""Seed robustness (src/neurips26/robustness/): seed sets disjoint from the configured seeds, and robustness.json's
per-set verdicts, "holds in k of K", stability and pooled intervals, on synthetic claims documents."""

from __future__ import annotations

import pytest

from neurips26.common.pipeline.claims import SeedTest, seed_interval
from neurips26.common.pipeline.errors import UserError
from neurips26.report.html import robustness_text
from neurips26.robustness.aggregate import aggregate
from neurips26.robustness.seed_sets import parse_set_name, seed_sets, set_name


def test_seed_sets_are_consecutive_blocks_disjoint_from_the_configured_seeds():
    assert seed_sets({"sets": 3, "size": 3, "first_seed": 100}, [0, 1, 2]) == [[100, 101, 102], [103, 104, 105],
                                                                             [106, 107, 108]]
    assert seed_sets({"sets": 0, "size": 3, "first_seed": 0}, [0, 1, 2]) == []
    with pytest.raises(UserError, match=r"configured seed\(s\) \[1, 2\]"):
        seed_sets({"sets": 1, "size": 3, "first_seed": 1}, [0, 1, 2])
    assert parse_set_name(set_name([100, 101, 102])) == [100, 101, 102]


def _document(seeds, values, verdict, claim_id="gap_positive"):
    """A claims.json with one seed-interval claim whose per-seed values are given."""
    test = SeedTest("gap", dict(zip(seeds, values)), ">", 0.0)
    return {"paper_id": "p", "scale": "default", "data": "embedded", "seeds": list(seeds),
            "provenance": {"commit": "abc"},
            "claims": [{"id": claim_id, "kind": "claim", "verdict": verdict, "tests": [test.to_json()],
                        "per_seed": {str(s): {"gap": v} for s, v in zip(seeds, values)}}]}


def test_robustness_counts_the_sets_where_a_claim_holds_and_marks_disagreement_unstable():
    configured = _document([0, 1, 2], [0.1, 0.12, 0.11], "holds")
    sets = [_document([100, 101, 102], [0.1, 0.11, 0.12], "holds"),
            _document([103, 104, 105], [-0.2, 0.3, 0.05], "inconclusive")]
    claim = aggregate(configured, sets)["claims"][0]
    assert (claim["holds_in"], claim["sets"], claim["stable"]) == (1, 2, False)
    assert claim["set_verdicts"] == ["holds", "inconclusive"]
    stable = aggregate(configured, sets[:1])["claims"][0]
    assert stable["stable"] and stable["holds_in"] == 1


def test_the_pooled_interval_is_the_t_interval_of_every_sets_seeds_against_the_claims_bound():
    configured = _document([0, 1, 2], [0.1, 0.12, 0.11], "holds")
    values = [[0.1, 0.11, 0.12], [-0.2, 0.3, 0.05]]
    sets = [_document([100, 101, 102], values[0], "holds"), _document([103, 104, 105], values[1], "inconclusive")]
    pooled = aggregate(configured, sets)["claims"][0]["pooled"][0]
    mean, lo, hi = seed_interval(values[0] + values[1])
    assert pooled["n"] == 6 and pooled["estimate"] == pytest.approx(mean, rel=1e-5)
    assert (pooled["ci_low"], pooled["ci_high"]) == (pytest.approx(lo, rel=1e-5), pytest.approx(hi, rel=1e-5))
    assert pooled["outcome"] == ("holds" if lo > 0 else "fails" if hi < 0 else "inconclusive")
    # the configured seeds are not pooled: they chose the design
    assert pooled["n"] == sum(len(v) for v in values)


def test_a_set_that_shares_seeds_with_the_configured_run_or_another_set_is_refused():
    configured = _document([0, 1, 2], [0.1, 0.12, 0.11], "holds")
    with pytest.raises(UserError, match="share seeds"):
        aggregate(configured, [_document([2, 3, 4], [0.1, 0.1, 0.1], "holds")])
    with pytest.raises(UserError, match="two seed sets"):
        aggregate(configured, [_document([5, 6, 7], [0.1, 0.2, 0.1], "holds"),
                               _document([7, 8, 9], [0.1, 0.2, 0.1], "holds")])


def test_a_claim_missing_from_a_set_counts_as_missing_and_is_not_pooled():
    configured = _document([0, 1, 2], [0.1, 0.12, 0.11], "holds")
    other = _document([100, 101, 102], [0.1, 0.11, 0.12], "holds", claim_id="renamed")
    claim = aggregate(configured, [other])["claims"][0]
    assert claim["set_verdicts"] == ["missing"] and not claim["stable"] and claim["pooled"] == []


def test_the_page_shows_k_of_k_and_marks_an_unstable_claim():
    text = robustness_text({"holds_in": 2, "sets": 3, "stable": False, "set_verdicts": ["holds", "holds", "fails"]})
    assert "holds in 2/3 seed sets" in text and "unstable" in text
    assert "unstable" not in robustness_text({"holds_in": 3, "sets": 3, "stable": True,
                                              "set_verdicts": ["holds"] * 3})
    assert robustness_text(None) == ""

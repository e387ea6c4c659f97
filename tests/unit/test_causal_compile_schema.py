"""The estimand schema's errors on malformed evidence: which record, which field, what was expected."""

import copy

import pytest

from neurips26.papers.causal_compile.schema import EvidenceError, Scale, parse_estimand

GOOD = {"study_id": "S1", "scale": "OR", "estimate": 1.5, "ci_low": 1.1, "ci_high": 2.0,
        "contrast": {"exposure": "bmi", "comparator": "reference level", "outcome": "diabetes"},
        "horizon": {"value": 52, "unit": "weeks"}, "population": {"group": "adults", "min_age": 18},
        "design": "rct", "n": 400, "baseline_risk": 0.2}


def with_(path, value):
    record = copy.deepcopy(GOOD)
    target = record
    *parents, last = path.split(".")
    for p in parents:
        target = target[p]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return record


def test_a_well_formed_record_parses():
    est = parse_estimand(GOOD)
    assert est.scale == Scale.OR
    assert est.horizon.months == pytest.approx(52 * 7 / 30.4375)


@pytest.mark.parametrize("path, value, message", [
    ("ci_low", 2.5, "out of order"),
    ("estimate", 3.0, "outside its CI"),
    ("estimate", -0.5, "must be > 0"),
    ("estimate", float("nan"), "finite"),
    ("ci_high", KeyError, "both CI bounds"),
    ("horizon.unit", "fortnights", "horizon unit"),
    ("horizon.value", 0, "greater than 0"),
    ("baseline_risk", 1.2, "less than 1"),
    ("scale", "NNT", "scale"),
    ("design", "anecdote", "design"),
    ("contrast.outcome", "", "at least 1"),
    ("contrast.delta_sd", 0.0, "non-zero"),
    ("population.max_age", 10, "age range is empty"),
    ("n", -5, "greater than 0"),
    ("study_id", KeyError, "study_id"),
    ("extra_field", 1, "not permitted"),
])
def test_malformed_evidence_is_refused_naming_the_field(path, value, message):
    with pytest.raises(EvidenceError, match=message) as info:
        parse_estimand(with_(path, value), where="abstract")
    assert "malformed" in str(info.value)


def test_a_mean_difference_needs_the_outcome_sd():
    record = with_("scale", "MD")
    record.update(estimate=-3.0, ci_low=-5.0, ci_high=-1.0)
    with pytest.raises(EvidenceError, match="outcome_sd"):
        parse_estimand(record)
    record["outcome_sd"] = 15.0
    assert parse_estimand(record).outcome_sd == 15.0


def test_the_error_names_the_record():
    with pytest.raises(EvidenceError, match="'S1'"):
        parse_estimand(with_("ci_low", 5.0))

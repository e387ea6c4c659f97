"""The compiler: canonicalisation (direction, conversions), conflict detection per cell, default claims, the
extractor on the generated corpus and on real abstract text, and the pooled baseline."""

import math

import pandas as pd
import pytest

from neurips26.common.pipeline.config import compose
from neurips26.papers.causal_compile import conversions as cv
from neurips26.papers.causal_compile import corpus, experiments, method, real_text
from neurips26.papers.causal_compile.extractor import Vocabulary, extract_abstract
from neurips26.papers.causal_compile.schema import parse_estimand
from neurips26.papers.causal_compile.scm import SCM


@pytest.fixture(scope="module")
def cfg():
    return compose("causal_compile", ["scale=tiny"])


@pytest.fixture(scope="module")
def variables(cfg):
    return SCM.from_config(cfg).variables


def record(**kw):
    base = {"study_id": "S1", "scale": "OR", "estimate": 2.0, "ci_low": 1.5, "ci_high": 2.7,
            "contrast": {"exposure": "bmi", "comparator": "reference", "outcome": "diabetes"},
            "horizon": {"value": 1, "unit": "year"}, "population": {"group": "adults"}, "baseline_risk": 0.2}
    base.update(kw)
    return base


def test_canonicalise_or_with_baseline_risk_and_a_reversed_contrast(variables):
    k = method.canonicalise(parse_estimand(record()), variables, "k")
    assert k.value == pytest.approx(math.log(5 / 3))
    assert k.method == "zhang_yu" and k.horizon == pytest.approx(12)
    lo, hi = math.log(cv.or_to_rr(1.5, 0.2)), math.log(cv.or_to_rr(2.7, 0.2))
    assert k.se == pytest.approx((hi - lo) / (2 * 1.959964), rel=1e-5)
    rev = record(contrast={"exposure": "bmi", "comparator": "reference", "outcome": "diabetes", "delta_sd": -1.0})
    assert method.canonicalise(parse_estimand(rev), variables, "k").value == pytest.approx(-math.log(5 / 3))
    naive = method.canonicalise(parse_estimand(record()), variables, "k", naive=True)
    assert naive.value == pytest.approx(math.log(2.0))


def test_canonicalise_continuous_scales(variables):
    c = {"exposure": "bmi", "comparator": "reference", "outcome": "systolic_bp"}
    md = parse_estimand(record(scale="MD", estimate=6.0, ci_low=3.0, ci_high=9.0, outcome_sd=15.0, contrast=c,
                               baseline_risk=None))
    assert method.canonicalise(md, variables, "k").value == pytest.approx(0.4)
    odds = parse_estimand(record(contrast=c, estimate=math.exp(0.9069), ci_low=1.5, ci_high=4.0))
    assert method.canonicalise(odds, variables, "k").value == pytest.approx(0.5, abs=1e-4)


def test_unknown_variables_and_mismatched_scales_are_rejections(variables):
    bad = record(contrast={"exposure": "coffee", "comparator": "none", "outcome": "diabetes"})
    bad_scale = record(scale="SMD", estimate=0.2, ci_low=0.1, ci_high=0.3)
    kernels, rejected = method.compile_records([bad, bad_scale, record()], variables)
    assert len(kernels) == 1 and len(rejected) == 2
    assert "unknown exposure 'coffee'" in rejected[0]["reason"]
    assert "not defined for binary outcome" in rejected[1]["reason"]


def kernel(kid, value, se, population="adults", horizon=12.0):
    return method.Kernel(kid, kid, "bmi", "diabetes", population, horizon, value, se, "rct", "log", quality=1 / se)


def test_conflicts_are_detected_within_a_cell_only():
    ks = [kernel("a", 0.30, 0.05), kernel("b", 0.28, 0.06), kernel("c", -0.30, 0.08),
          kernel("d", -0.30, 0.05, population="older adults"), kernel("e", -0.30, 0.05, horizon=48.0)]
    found = method.detect_conflicts(ks)
    assert found.pairs == {("a", "c"), ("b", "c")}
    assert found.reasons[("a", "c")] == "opposite_significant"
    claims = method.default_claims(ks, found)
    cell = claims[("bmi", "diabetes", "adults", 12)]
    assert cell["excluded"] == ["c"] and sorted(cell["kept"]) == ["a", "b"]
    w = [1 / 0.05**2, 1 / 0.06**2]
    assert cell["value"] == pytest.approx((w[0] * 0.30 + w[1] * 0.28) / sum(w))


def test_disjoint_intervals_and_high_i2_are_conflicts():
    apart = method.detect_conflicts([kernel("a", 0.10, 0.01), kernel("b", 0.40, 0.02)])
    assert apart.reasons[("a", "b")] == "ci_disjoint"
    agree = method.detect_conflicts([kernel("a", 0.10, 0.05), kernel("b", 0.12, 0.05), kernel("c", 0.08, 0.05)])
    assert not agree.pairs
    i2 = method.detect_conflicts([kernel("a", 0.10, 0.05), kernel("b", 0.12, 0.05), kernel("c", 0.45, 0.08)],
                                 level=0.999)
    assert i2.pairs == {("a", "c"), ("b", "c")} and set(i2.reasons.values()) == {"i2"}


def test_pooled_baseline_ignores_population_and_conflicts(variables):
    ks = [kernel("a", 0.3, 0.1), kernel("b", -0.3, 0.1, population="older adults")]
    g = method.pooled_graph(ks, variables)
    assert g["bmi"]["diabetes"]["pooled"]["value"] == pytest.approx(0.0)


def test_extractor_recovers_every_generated_kernel(cfg, variables):
    abstracts, truth = corpus.generate(cfg, 11)
    vocab = Vocabulary(variables)
    records = experiments.extract_all(abstracts, vocab)
    assert len(records) == len(truth)
    kernels, rejected = method.compile_records(records, variables)
    rejected_ids = {r["kernel_id"] for r in rejected}
    assert rejected_ids == {t["kernel_id"] for t in truth if t["malformed"]}
    by_id = {k.kernel_id: k for k in kernels}
    exact = [t for t in truth if not t["malformed"] and (t["scale"] in ("RR", "SMD", "MD") or
                                                        (t["outcome_kind"] == "binary" and t["p0_reported"]))]
    assert exact
    for t in exact:
        k = by_id[t["kernel_id"]]
        assert (k.exposure, k.outcome, k.population) == (t["exposure"], t["outcome"], t["population"])
        assert k.horizon == pytest.approx(t["horizon"], abs=0.1)
        assert k.value == pytest.approx(t["theta"], abs=0.02 + 0.1 * abs(t["theta"]))  # text keeps 2 decimals


def test_extractor_reads_one_sentence():
    text = ("Methods: In this randomized controlled trial we followed 500 adults aged 18 years or older for up to 2 "
            "years. Results: Among older adults (aged 65 years or older), at 2 years, a one-standard-deviation lower "
            "body mass index was associated with a hazard ratio for incident diabetes of 0.80 (95% CI, 0.70 to 0.91); "
            "the risk of incident diabetes in the reference group was 12.5%.")
    from neurips26.papers.causal_compile.scm import SCM as _SCM  # noqa: F401 (vocabulary from the config)

    vocab = Vocabulary(SCM.from_config(compose("causal_compile", ["scale=tiny"])).variables)
    (r,) = extract_abstract("S9", text, vocab)
    assert r["scale"] == "HR" and r["estimate"] == 0.80 and (r["ci_low"], r["ci_high"]) == (0.70, 0.91)
    assert r["contrast"]["exposure"] == "bmi" and r["contrast"]["outcome"] == "diabetes"
    assert r["contrast"]["delta_sd"] == -1.0 and r["baseline_risk"] == pytest.approx(0.125)
    assert r["population"]["group"] == "older adults" and r["horizon"] == {"value": 2.0, "unit": "years"}
    assert r["design"] == "rct" and r["n"] == 500


def test_real_text_extractor_on_medline_style_sentences():
    text = ("adjusted hazard ratio [HR] 0·71 [95% CI 0·19-2·58]; p=0·60. With drug versus placebo, 78% versus 32% "
            "of patients benefited (odds ratio, 1.14; 95% confidence interval [CI], 1.00 to 1.30). "
            "Cardiac death (16 [1.4%] vs 12 [1.0%], p=0.558), infarction (0 [0%] vs 3 [0.3%]). Dose 20 or 30 mg.")
    found = real_text.extract_statements("1", text)
    ratios = [(s["scale"], s["estimate"], s["ci_low"], s["ci_high"]) for s in found if s["kind"] == "ratio"]
    assert ratios == [("HR", 0.71, 0.19, 2.58), ("OR", 1.14, 1.0, 1.3)]
    pairs = [(s["arm_a"], s["arm_b"]) for s in found if s["kind"] == "percent_pair"]
    assert pairs == [(78.0, 32.0), (1.4, 1.0), (0.0, 0.3)]
    valid = [real_text.parse_statement(s)[0] for s in found]
    assert valid == [True, True, True, True, False]  # a 0% arm has no ratio: the schema refuses it


def test_real_text_scoring_against_a_gold_set():
    abstracts = [{"pmid": "1", "title": "", "text": "odds ratio 1.50 (95% CI 1.10 to 2.00). 40% vs 20%."}]
    gold = pd.DataFrame([{"pmid": 1, "kind": "ratio", "estimate": 1.5, "arm_a": None, "arm_b": None},
                         {"pmid": 1, "kind": "percent_pair", "estimate": None, "arm_a": 30, "arm_b": 20}])
    rows, summary = real_text.score(abstracts, gold)
    assert summary["gold_found"] == 1 and summary["recall"] == 0.5 and summary["precision"] == 0.5

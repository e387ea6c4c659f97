"""docscope tables and claims on a hand-made run frame: stage scores, oracle marginal gains, dispersion drops, kappa;
the v2 claims (per-seed tests) on three hand-made seeds."""

import pandas as pd
import pytest

from neurips26.papers.docscope import paper_claims, tables
from tests.claims_check import checked_document

SYSTEMS = ["bm25_paragraph", "bm25_line", "bm25_ocr_paragraph", "oracle_pages", "oracle_regions", "oracle_facts",
           "noisy_boxes_0.01", "noisy_boxes_0.02", "noisy_boxes_0.04"]  # fmt: skip


# five questions with k = 2 (one operation): the cluster effect is read within the near bin (q0 vs q1, q2), the
# distance effect within two clusters (q1, q2 vs q3, q4)
CELLS = [("near", 1), ("near", 2), ("near", 2), ("far", 2), ("far", 2)]


def _rows(seed=0, reverse=False):
    rows = []
    acc = {"bm25_paragraph": [1, 1, 0, 0, 0], "bm25_line": [1, 1, 0, 0, 0], "oracle_pages": [1, 1, 1, 0, 0],
           "oracle_regions": [1, 1, 1, 0, 0], "oracle_facts": [1] * 5, "noisy_boxes_0.01": [1] * 5,
           "noisy_boxes_0.02": [1] * 5, "noisy_boxes_0.04": [1] * 5, "bm25_ocr_paragraph": [1, 1, 1, 0, 0]}  # fmt: skip
    for system in SYSTEMS:
        # covered gold boxes of 2: line citations 1 (1 imprecise), predicted OCR boxes 0, noisy boxes 1, else 2
        cov = {"bm25_line": 1, "bm25_ocr_paragraph": 0}.get(system, 1 if "noisy" in system else 2)
        for i, (dist, clus) in enumerate(CELLS):
            ok = bool(acc[system][len(CELLS) - 1 - i if reverse else i])
            rows.append({"seed": seed, "system": system, "qid": f"q{i}", "answerable": True, "distance_bin": dist,
                         "clusters": clus, "n_evidence": 2, "op": "difference", "page_p": 1.0,
                         "page_r": 1.0 if ok else 0.0, "page_f1": 1.0 if ok else 0.0, "n_gold_boxes": 2,
                         "n_covered": cov, "n_imprecise": 1 if cov == 1 else 0, "n_not_covered": 2 if cov == 0 else 0,
                         "n_unjudged": 0, "n_facts": 2, "n_fact_judged": 2, "n_consistent": 2 if ok else 0,
                         "answer_correct": ok, "chain_complete": ok and cov == 2})  # fmt: skip
    return pd.DataFrame(rows)


def test_tables_and_claims():
    runs = _rows()
    main = tables.table_main(runs)
    row = main.set_index("system").loc["bm25_line"]
    assert row["region_score"] == pytest.approx(0.5) and row["answer_accuracy"] == pytest.approx(0.4)
    assert row["fact_score"] == pytest.approx(0.4)  # consistent / judged
    assert row["chain_among_correct"] == 0.0
    orc = tables.table_oracle(runs, "bm25_paragraph").set_index("variant")
    assert orc.loc["oracle_pages", "marginal_gain"] == pytest.approx(0.2)
    assert orc.loc["oracle_regions", "marginal_gain"] == pytest.approx(0.0)
    assert orc.loc["oracle_facts", "marginal_gain"] == pytest.approx(0.4)
    disp = tables.table_dispersion(runs, "bm25_paragraph")
    near = disp[(disp.factor == "distance_bin") & (disp.level == "near")].iloc[0]
    assert near["answer_accuracy"] == pytest.approx(2 / 3)
    assert list(disp[disp.factor == "cell"]["level"]) == ["k=2 clusters=1 near", "k=2 clusters=2 near",
                                                          "k=2 clusters=2 far"]  # fmt: skip
    # within k and op: clusters 1 vs 2 in the near bin: 1 - 1/2; distance near vs far with 2 clusters: 1/2 - 0
    assert tables.stratified_drop(runs, "bm25_paragraph", "clusters", "answer_correct") == pytest.approx(0.5)
    assert tables.stratified_drop(runs, "bm25_paragraph", "distance_bin", "answer_correct") == pytest.approx(0.5)
    # a question with k = 1 or a stratum with one level adds nothing
    k1 = runs.assign(n_evidence=1)
    assert pd.isna(tables.stratified_drop(k1, "bm25_paragraph", "clusters", "answer_correct"))
    cal = pd.DataFrame({"seed": [0] * 4, "judge": ["region", "region", "fact", "answer"],
                        "gold": ["covered", "imprecise", "True", "False"],
                        "judged": ["covered", "imprecise", "True", "False"]})  # fmt: skip
    kappa = tables.table_judge_kappa(cal)
    assert set(kappa["kappa"]) == {1.0}


def _calibration(seeds, agree=True):
    rows = []
    for seed in seeds:
        for judge, labels in (
            ("region", ["covered", "imprecise", "not_covered"]),
            ("fact", ["True", "False"]),
            ("answer", ["True", "False"]),
            ("fact_numbers_only", ["True", "False"]),
        ):
            for i in range(6 + seed):
                gold = labels[i % len(labels)]
                good = agree and judge != "fact_numbers_only"  # the numbers-only judge: every other label wrong
                judged = gold if good or i % 2 else labels[(i + 1) % len(labels)]
                rows.append({"seed": seed, "judge": judge, "gold": gold, "judged": judged})
    return pd.DataFrame(rows)


def _runs(reverse=False):
    # three seeds; seed s repeats the four questions s + 1 times (different sizes, the same rates)
    return pd.concat(
        [_rows(seed, reverse).assign(qid=lambda d, k=k: d["qid"] + f"_{k}") for seed in (0, 1, 2) for k in range(seed + 1)],
        ignore_index=True,
    )


def _verdicts(claims, scale="default", data="embedded"):
    return {c.id: c.to_json(scale, data) for c in claims}


@pytest.mark.slow
def test_claims_v2_per_seed_verdicts():
    runs = _runs()
    claims = paper_claims.build(runs, _calibration((0, 1, 2)), "bm25_paragraph", "bm25_ocr_paragraph")
    default = _verdicts(claims)
    # decided at paper (the embedded reader is blind to page distance): inconclusive at default, the tests computed
    assert default["dispersion"]["verdict"] == "inconclusive" and default["dispersion"]["outcome"] == "holds"
    assert "scale=paper" in default["dispersion"]["why_inconclusive"]
    assert default["dispersion"]["tests"][0]["estimate"] == pytest.approx(0.5)
    assert all(c["passed"] for c in default["dispersion"]["controls"])  # oracle facts: no effect
    assert _verdicts(claims, "paper", "real")["dispersion"]["verdict"] == "holds"
    # the MLLM claims are decided at scale=paper data=real: inconclusive here, their tests still computed
    for cid in ("chain_gap", "region_weakest"):
        assert default[cid]["verdict"] == "inconclusive" and "scale=paper" in default[cid]["why_inconclusive"]
    assert default["chain_gap"]["outcome"] == "holds"
    for cid in ("mllm_numbers", "activated_params", "oracle_facts_largest", "judge_kappa"):
        assert default[cid]["verdict"] == "inconclusive" and default[cid]["tests"] == []
    # the embedded oracle gains and kappas are sanity rows, with the numbers-only fact judge as negative control
    assert default["oracle_facts_embedded"]["kind"] == "sanity" and default["oracle_facts_embedded"]["verdict"] == "holds"
    kappa = default["judge_kappa_embedded"]
    assert kappa["kind"] == "sanity" and kappa["verdict"] == "holds" and kappa["controls"][0]["passed"]
    # at the deciding scale the tests decide: no covered OCR box -> no complete chain; region is the weakest stage;
    # positive (noisy boxes) and negative (oracle facts) controls pass
    paper = _verdicts(claims, "paper", "real")
    assert paper["chain_gap"]["verdict"] == "holds" and paper["region_weakest"]["verdict"] == "holds"
    controls = paper["chain_gap"]["controls"] + paper["region_weakest"]["controls"]
    assert all(c["passed"] for c in controls) and {c["kind"] for c in controls} == {"positive", "negative"}
    # the same test on the text-layer system (exact boxes): every correct answer has a complete chain -> fails
    text = _verdicts(paper_claims.build(runs, _calibration((0, 1, 2)), "bm25_paragraph", "bm25_paragraph"), "paper", "real")
    assert text["chain_gap"]["verdict"] == "fails"
    # a dispersion effect on the oracle itself makes the dispersion claim inconclusive (its negative control fails)
    shifted = runs.copy()
    shifted.loc[(shifted.system == "oracle_facts") & (shifted.distance_bin == "far"), "answer_correct"] = False
    shifted.loc[(shifted.system == "oracle_facts") & (shifted.qid.str.startswith(("q1", "q2"))), "answer_correct"] = False
    entry = _verdicts(paper_claims.build(shifted, _calibration((0, 1, 2)), "bm25_paragraph", "bm25_ocr_paragraph"),
                      "paper", "real")
    assert entry["dispersion"]["verdict"] == "inconclusive" and "negative control" in entry["dispersion"]["why_inconclusive"]


@pytest.mark.slow
def test_claims_v2_dispersion_reversed_fails():
    # accuracy rises with distance on every seed: a clear loss
    claims = paper_claims.build(
        _runs(reverse=True), _calibration((0, 1, 2), agree=False), "bm25_paragraph", "bm25_ocr_paragraph"
    )
    verdicts = _verdicts(claims, "paper", "real")
    assert verdicts["dispersion"]["verdict"] == "fails"
    # half the calibration labels wrong on every seed: kappa far below 0.8 -> the sanity row fails
    assert verdicts["judge_kappa_embedded"]["verdict"] == "fails"


def test_claims_v2_two_seeds_inconclusive():
    runs = _runs()
    claims = paper_claims.build(runs[runs["seed"] < 2], _calibration((0, 1)), "bm25_paragraph", "bm25_ocr_paragraph")
    entry = _verdicts(claims, "paper", "real")["dispersion"]
    assert entry["verdict"] == "inconclusive" and entry["outcome"] == "inconclusive"
    assert all(c["passed"] is None for c in entry["controls"])  # two seeds: no interval, the controls are missing


@pytest.mark.slow
def test_claims_v2_document_validates_and_matches_the_registry(tmp_path):
    claims = paper_claims.build(_runs(), _calibration((0, 1, 2)), "bm25_paragraph", "bm25_ocr_paragraph")
    checked_document("docscope", claims, tmp_path)

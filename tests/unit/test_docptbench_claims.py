"""docptbench: the geometric capture profile, the tables' pooling, the claims' definitions and the cheap stages."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.papers.docptbench import bootstrap, camera, experiments, paper_claims, stages, tables
from tests.claims_check import checked_document

PHOTOMETRIC = ("curl", "fold_shading", "light_gradient", "shadow", "blur_sigma", "noise_sigma")


def test_profile_scales_the_ranges_and_rejects_unknown_keys():
    prof = camera.profile({"corner_jitter": 2.0, "noise_sigma": 0.0})
    assert prof["corner_jitter"] == 2 * camera.BASE["corner_jitter"]
    assert prof["noise_sigma"] == 0.0 and prof["blur_sigma"] == camera.BASE["blur_sigma"]
    with pytest.raises(ValueError, match="curll"):
        camera.profile({"curll": 1.0})


def test_geometric_profile_keeps_geometry_and_removes_photometric_damage():
    scale = {k: 0.0 for k in (*PHOTOMETRIC, "jpeg_drop")}
    plain = camera.draw_params(3, (300, 240), np.random.default_rng(5), 1.25)
    geo = camera.draw_params(3, (300, 240), np.random.default_rng(5), 1.25, scale)
    assert geo["corners"] == plain["corners"]          # same draws, same geometry
    assert all(geo[k] == 0.0 for k in PHOTOMETRIC) and geo["jpeg_quality"] == 95
    assert all(plain[k] > 0 for k in PHOTOMETRIC)


def _runs(seeds=(0, 1), jitter=0.0, pages=1, severities=(1,)) -> pd.DataFrame:
    """`pages` pages a seed x (original, each severity and the geometric capture) x three conditions, one parser,
    known edits (page k of seed s adds (s + k) * jitter to every photographed-side edit; severity s adds 0.1 (s - 1))."""
    rows = []
    for seed in seeds:
        for k in range(pages):
            page = {"seed": seed, "kind": "en", "page_id": f"en-{seed}-{k}", "parser": "p"}
            rows.append({**page, "condition": "original", "severity": 0, "overall_edit": 0.1})
            levels = [(s, tuple(e + 0.1 * (s - 1) for e in (0.5, 0.45, 0.4))) for s in severities]
            for severity, edits in [*levels, ("geo", (0.5, 0.2, 0.15))]:
                for condition, edit in zip(("photographed", "unwarped", "oracle_unwarped"), edits):
                    rows.append({**page, "condition": condition, "severity": severity,
                                 "overall_edit": edit + (seed + k) * jitter})
    frame = pd.DataFrame(rows)
    for column in ("text_edit", "table_edit", "teds", "order_edit"):
        frame[column] = frame.overall_edit
    for column in ("bleu", "chrf", "steds"):
        frame[column] = 100 * (1 - frame.overall_edit)
    frame["quad_found"] = True
    return frame


CFG = OmegaConf.create({"claims": {"parser": "p", "parsing_drop_points": 15,
                                   "bootstrap": {"resamples": 2000, "seed": 59}}, "severities": [1]})


def _pages(runs, severities=("1",)):
    return paper_claims.Pages(tables.pages(runs), "p", list(severities), 2000, 59, "scale=paper (more pages)")


def _row(table, condition, severity):
    return table[(table.condition == condition) & (table.severity == severity)].iloc[0]


def test_geometric_rows_are_not_pooled_into_all():
    table = tables.parsing(_runs())
    assert _row(table, "photographed", "all").overall_edit == pytest.approx(0.5)
    assert _row(table, "unwarped", "all").overall_edit == pytest.approx(0.45)      # severity 1 only
    assert _row(table, "unwarped", "geo").overall_edit == pytest.approx(0.2)
    assert _row(table, "unwarped", "geo").relative_drop == pytest.approx((0.9 - 0.8) / 0.9)



def test_tables_keep_each_seeds_rows():
    table = tables.parsing(_runs((0, 1, 2), jitter=0.01))
    assert list(table["seed"].unique()) == ["all", "0", "1", "2"]
    seed2 = table[(table.seed == "2") & (table.condition == "photographed") & (table.severity == "all")].iloc[0]
    assert seed2.overall_edit == pytest.approx(0.52) and seed2.relative_drop == pytest.approx((0.9 - 0.48) / 0.9)


def test_unwarp_claim_judged_on_the_geometric_capture_with_the_oracle_as_control():
    p = _pages(_runs((0, 1, 2), jitter=0.01, pages=2))
    main = paper_claims._unwarp_claim(p, "p", "").to_json("paper", "real")
    # seed 0, page 0: accuracies 0.9 -> 0.5 -> 0.8: recovered (0.8 - 0.5) / (0.9 - 0.5) = 0.75; every page 0.75 - 0.77
    assert main["statistic"]["estimate"] == pytest.approx(0.3 / (0.4 + 0.015), rel=1e-5)  # mean jitter 0.015
    assert main["statistic"]["n"] == 6 and main["per_seed"]["0"]["recovered fraction, geometric (p)"] == \
        pytest.approx(0.3 / 0.405, rel=1e-5)
    assert main["verdict"] == "holds" and all(c["passed"] for c in main["controls"])
    assert main["controls"][0]["test"]["estimate"] == pytest.approx(0.35 / 0.415, rel=1e-5)
    # decided at scale=paper data=real (the release's own photographed / unwarped pairs)
    default = paper_claims._unwarp_claim(p, "p", "").to_json("default", "embedded")
    assert default["outcome"] == "holds" and default["verdict"] == "inconclusive"
    assert "scale=paper" in default["why_inconclusive"]
    pooled = paper_claims._pooled_unwarp_claim(p, "p").to_json("paper", "real")   # 0.9 -> 0.5 -> 0.55: 12.5%
    assert pooled["verdict"] == "fails" and pooled["statistic"]["estimate"] == pytest.approx(0.05 / 0.415, rel=1e-5)


def test_unwarp_claim_inconclusive_when_the_oracle_control_fails():
    runs = _runs((0, 1, 2), jitter=0.01, pages=2)
    geo_oracle = (runs.severity.astype(str) == "geo") & (runs.condition == "oracle_unwarped")
    runs.loc[geo_oracle, "overall_edit"] = 0.5  # the oracle unwarp recovers nothing
    main = paper_claims._unwarp_claim(_pages(runs), "p", "").to_json("paper", "real")
    assert main["outcome"] == "holds" and main["verdict"] == "inconclusive"
    assert "oracle_unwarp_recovers" in main["why_inconclusive"]


def test_parsing_drop_in_points_holds_fails_and_straddles():
    runs = _runs((0, 1, 2), jitter=0.01, pages=3)
    entry = paper_claims._drop_claim(_pages(runs), "p", 15.0, "").to_json("default", "embedded")
    # edit 0.1 -> 0.5 + jitter: 40 points and more on every page, relative accuracy drop about 0.44 beside it
    assert entry["verdict"] == "holds" and entry["statistic"]["estimate"] == pytest.approx(40 + 100 * 0.02, rel=1e-5)
    assert entry["measured"]["relative_accuracy_drop"] == pytest.approx(0.42 / 0.9, rel=1e-5)
    assert entry["statistic"]["rule"].startswith("95% percentile page-bootstrap")
    flat = runs.copy()
    flat.loc[flat.condition != "original", "overall_edit"] = 0.1 + 0.001 * flat["seed"]  # no drop at all
    assert paper_claims._drop_claim(_pages(flat), "p", 15.0, "").to_json("default", "embedded")["verdict"] == "fails"
    # pages that lose 5 or 25 points: the interval of the mean (15 on average) straddles the 15-point bound
    mixed = runs.copy()
    photo = mixed.condition != "original"
    mixed.loc[photo, "overall_edit"] = np.where(mixed.loc[photo, "page_id"].str.endswith("0"), 0.15, 0.35)
    entry = paper_claims._drop_claim(_pages(mixed), "p", 15.0, "").to_json("default", "embedded")
    assert entry["verdict"] == "inconclusive" and "page-bootstrap interval" in entry["why_inconclusive"]
    assert "scale=paper (more pages) decides it" in entry["why_inconclusive"]


def _point_runs(bleu_photographed, pages=4):
    """The paper's own numbers (its Fig. 1, MLLMs, English) on pages with small noise: edit 0.23 -> 0.41
    (+18 points), BLEU 44.38 -> bleu_photographed."""
    rows = []
    for k, noise in enumerate(np.linspace(-0.5, 0.5, pages)):
        page = {"seed": k % 3, "kind": "en", "page_id": f"p{k}", "parser": "p", "chrf": 50.0}
        rows.append({**page, "condition": "original", "severity": 0, "overall_edit": 0.23 + noise / 100,
                     "bleu": 44.38 + noise})
        rows.append({**page, "condition": "photographed", "severity": 1, "overall_edit": 0.41 + noise / 100,
                     "bleu": bleu_photographed + noise})
    return pd.DataFrame(rows)


def test_translation_claim_compares_points_as_the_paper_does():
    claim = paper_claims.translation_claim(_pages(_point_runs(34.10)), "p")
    entry = claim.to_json("long", "real")
    assert entry["measured"]["parsing_drop_points"] == pytest.approx(18.0)
    assert entry["statistic"]["estimate"] == pytest.approx(10.28)
    assert entry["verdict"] == "holds"
    # decided at scale=long data=real: the embedded run's OCR + rule-based MT cannot decide an MLLM claim
    default = claim.to_json("default", "embedded")
    assert default["verdict"] == "inconclusive" and "scale=long" in default["why_inconclusive"]
    assert "OCR propagation" in entry["tests"][0]["name"]
    worse = paper_claims.translation_claim(_pages(_point_runs(20.0)), "p").to_json("long", "real")
    assert worse["verdict"] == "fails"  # BLEU falls 24 points, more than parsing's 18


def test_page_bootstrap_interval_covers_the_mean_and_narrows_with_pages():
    rng = np.random.default_rng(0)
    small = pd.DataFrame({"d": rng.normal(2.0, 1.0, 10)})
    large = pd.DataFrame({"d": rng.normal(2.0, 1.0, 200)})
    est, lo, hi, n = bootstrap.interval(small, bootstrap.mean_of("d"), 4000, 1)
    assert n == 10 and lo < est < hi and est == pytest.approx(small.d.mean())
    # the percentile interval of a mean is about mean -/+ 1.96 sd / sqrt(n)
    half = 1.96 * small.d.std(ddof=0) / np.sqrt(10)
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.2)
    _, lo2, hi2, _ = bootstrap.interval(large, bootstrap.mean_of("d"), 4000, 1)
    assert hi2 - lo2 < (hi - lo) / 2
    # a ratio of means, and a NaN page dropped
    ratio = pd.DataFrame({"a": [1.0, 2.0, np.nan, 3.0], "b": [2.0, 4.0, 1.0, 6.0]})
    assert bootstrap.interval(ratio, bootstrap.ratio_of_means("a", "b"), 500, 1)[0] == pytest.approx(0.5)
    assert bootstrap.interval(ratio, bootstrap.ratio_of_means("a", "b"), 500, 1)[3] == 3


def test_page_test_needs_three_pages():
    two = pd.DataFrame({"d": [5.0, 6.0]})
    test = bootstrap.PageTest("two pages", two, bootstrap.mean_of("d"), ">", 0.0, 500, 1)
    assert test.outcome()[0] == "inconclusive"
    three = pd.DataFrame({"d": [5.0, 6.0, 7.0]})
    assert bootstrap.PageTest("three", three, bootstrap.mean_of("d"), ">", 0.0, 500, 1).outcome()[0] == "holds"
    assert bootstrap.PageTest("three", three, bootstrap.mean_of("d"), "<", 0.0, 500, 1).outcome()[0] == "fails"


def test_captures_add_the_geometric_condition_when_configured():
    page = experiments.corpus.Page("t", "en", "test", np.full((120, 90), 255, np.uint8), [])
    cfg = OmegaConf.create({"severities": [1], "camera": {"frame_scale": 1.25},
                            "geometric": {"enabled": True, "severity": 3, "scale": {"noise_sigma": 0.0}}})
    labels = [(s, c) for s, c, *_ in experiments.captures(page, 0, "en", 0, cfg)]
    assert labels == [(0, "original"), (1, "photographed"), (1, "unwarped"), (1, "oracle_unwarped"),
                      ("geo", "photographed"), ("geo", "unwarped"), ("geo", "oracle_unwarped")]


def test_stage_kinds_match_and_stages_import_cheaply():
    assert set(stages.KINDS) == set(experiments.KINDS)
    code = ("import sys, neurips26.papers.docptbench.stages; "
            "print(sorted(m for m in ('matplotlib', 'cv2', 'torch', 'rapidocr_onnxruntime', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_claims_v2_document_validates_and_matches_the_registry(tmp_path):
    runs = pd.concat([_runs((0, 1, 2), jitter=0.01, pages=2, severities=(1, 2)).assign(parser=p)
                      for p in ("rapidocr", "tesseract")])
    cfg = OmegaConf.merge(CFG, {"claims": {"parser": "rapidocr"}, "severities": [1, 2]})
    claims, metrics = paper_claims.build(tables.pages(runs), cfg)
    document = checked_document("docptbench", claims, tmp_path)
    entries = {c["id"]: c for c in document["claims"]}
    assert entries["severity_monotone"]["verdict"] == "holds"  # severity 2 adds 10 points on every page
    assert entries["translation_drop_smaller"]["decided_at"] == "long"
    assert entries["translation_drop_smaller"]["verdict"] == "inconclusive"
    assert entries["mllm_vs_specialist"]["decided_at"] == "long"
    assert entries["unwarp_recovers_most"]["decided_at"] == "paper"
    assert metrics["pages"] == 6


def test_a_page_read_in_two_seeds_is_one_bootstrap_unit():
    runs = _runs((0, 1, 2), jitter=0.01, pages=2)
    assert paper_claims._drop_claim(_pages(runs), "p", 15.0, "").to_json("default", "embedded")["statistic"]["n"] == 6
    runs.loc[runs.page_id == "en-1-0", "page_id"] = "en-0-0"   # seed 1 drew seed 0's first page again
    entry = paper_claims._drop_claim(_pages(runs), "p", 15.0, "").to_json("default", "embedded")
    assert entry["statistic"]["n"] == 5
    # its two reads (jitter 0 and 0.01: 40 and 41 points) are averaged into one unit; the seeds keep their own reads
    assert entry["statistic"]["estimate"] == pytest.approx((40.5 + 41 + 42 + 42 + 43) / 5, rel=1e-5)
    assert entry["per_seed"]["1"]["parsing drop points, p"] == pytest.approx(41.5, rel=1e-5)

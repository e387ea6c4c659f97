"""docptbench: the geometric capture profile, the tables' pooling, the claims' definitions and the cheap stages."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.claims import evaluate
from neurips26.papers.docptbench import camera, experiments, paper_claims, stages, tables

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


def _runs() -> pd.DataFrame:
    """Two pages x (original, severity 1 and the geometric capture) x three conditions, one parser, known edits."""
    rows = []
    for seed in (0, 1):
        rows.append({"seed": seed, "parser": "p", "condition": "original", "severity": 0, "overall_edit": 0.1})
        for severity, edits in ((1, (0.5, 0.45, 0.4)), ("geo", (0.5, 0.2, 0.15))):
            for condition, edit in zip(("photographed", "unwarped", "oracle_unwarped"), edits):
                rows.append({"seed": seed, "parser": "p", "condition": condition, "severity": severity,
                             "overall_edit": edit})
    frame = pd.DataFrame(rows)
    for column in ("text_edit", "table_edit", "teds", "order_edit"):
        frame[column] = frame.overall_edit
    frame["quad_found"] = True
    return frame


def _row(table, condition, severity):
    return table[(table.condition == condition) & (table.severity == severity)].iloc[0]


def test_geometric_rows_are_not_pooled_into_all():
    table = tables.parsing(_runs())
    assert _row(table, "photographed", "all").overall_edit == pytest.approx(0.5)
    assert _row(table, "unwarped", "all").overall_edit == pytest.approx(0.45)      # severity 1 only
    assert _row(table, "unwarped", "geo").overall_edit == pytest.approx(0.2)
    assert _row(table, "unwarped", "geo").relative_drop == pytest.approx((0.9 - 0.8) / 0.9)


def test_unwarp_claim_judged_on_the_geometric_capture_with_the_oracle_as_control():
    table = tables.parsing(_runs()).assign(severity=lambda t: t.severity.astype(str))
    claims = {c.id: c for c in paper_claims.parsing_claims(table, "p", 0.15, pooled_recovery=True)}
    main = claims["unwarp_recovers_most"]
    # accuracies 0.9 -> 0.5 -> 0.8: recovered (0.8 - 0.5) / (0.9 - 0.5) = 0.75
    assert main.measured["recovered_fraction"] == pytest.approx(0.75)
    assert evaluate(main.criterion, main.measured) is True
    control = main.positive_control.to_json(main.criterion)
    assert control["measured"]["recovered_fraction"] == pytest.approx(0.35 / 0.4) and control["holds"] is True
    pooled = claims["unwarp_recovers_most_pooled"]          # 0.9 -> 0.5 -> 0.55: recovers 12.5%
    assert pooled.measured["recovered_fraction"] == pytest.approx(0.125)
    assert evaluate(pooled.criterion, pooled.measured) is False


def test_translation_claim_compares_points_as_the_paper_does():
    """The paper's own numbers (its Fig. 1, MLLMs, English): edit 0.23 -> 0.41 (+18 points), BLEU 44.38 -> 34.10
    (-10.3 points): the claim holds on them; a BLEU fall of 24 points does not."""
    parsing = pd.DataFrame({"parser": "p", "condition": ["original", "photographed"], "severity": ["0", "all"],
                            "overall_edit": [0.23, 0.41], "relative_drop": [0.0, 0.18 / 0.77]})
    translation = pd.DataFrame({"parser": "p", "condition": ["original", "photographed"], "severity": ["0", "all"],
                                "bleu": [44.38, 34.10], "chrf": [60.0, 50.0], "bleu_relative_drop": [0, 10.28 / 44.38],
                                "steds_relative_drop": [0.0, 0.1]})
    claim = paper_claims.translation_claim(parsing, translation, "p")
    assert claim.measured["parsing_drop_points"] == pytest.approx(18.0)
    assert claim.measured["bleu_drop_points"] == pytest.approx(10.28)
    assert evaluate(claim.criterion, claim.measured) is True
    worse = translation.assign(bleu=[44.38, 20.0])
    assert evaluate(claim.criterion, paper_claims.translation_claim(parsing, worse, "p").measured) is False


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

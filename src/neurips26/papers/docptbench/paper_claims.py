"""The abstract's claims as tests over per-seed values (claims contract v2; the design is in JOURNAL.md), read from
tables/parsing.csv and tables/translation.csv, whose rows with seed '<n>' are the table of that seed's runs alone.
The primary parser (config claims.parser: RapidOCR, the learned specialist, closest to the paper's parsers) decides
the verdicts; Tesseract, the classical baseline, gets its own entries for the parsing claims. Bounds are the ones the
criteria used before v2 (config `claims`, fixed before the first pipeline run)."""

from __future__ import annotations

import pandas as pd

from neurips26.common.claims import Claim, Control, SeedTest, paired

EVIDENCE_PARSING = ["tables/parsing.csv", "figures/edit_by_condition.png", "figures/severity_curve.png"]
EVIDENCE_TRANSLATION = ["tables/translation.csv"]
GEOMETRIC = "geo"   # severity label of the geometric capture (experiments.GEOMETRIC)
# The README's worked example of the paper (PaddleOCR-VL, English, overall edit x100): 10.5 -> 37.5 -> 15.7
PAPER_EXAMPLE = {"original": 0.105, "photographed": 0.375, "unwarped": 0.157}
RECOVERED = 0.5  # "recovers most": at least half of the accuracy lost (the criterion before v2)


def _rows(table: pd.DataFrame, parser: str, condition: str, severity: str) -> pd.DataFrame:
    severity = "0" if condition == "original" else severity
    return table[(table.parser == parser) & (table.condition == condition) & (table.severity.astype(str) == severity)]


def _value(table: pd.DataFrame, parser: str, condition: str, column: str, severity: str = "all") -> float:
    """The value pooled over seeds (seed 'all'; a table without a seed column is all pooled)."""
    rows = _rows(table, parser, condition, severity)
    if "seed" in rows.columns:
        rows = rows[rows["seed"].astype(str) == "all"]
    return float(rows[column].iloc[0]) if len(rows) else float("nan")


def _seeds(table: pd.DataFrame, parser: str, condition: str, column: str, severity: str = "all") -> pd.Series:
    """{seed: value} from each seed's own rows."""
    rows = _rows(table, parser, condition, severity)
    rows = rows[rows["seed"].astype(str) != "all"]
    return pd.Series({int(seed): float(v) for seed, v in zip(rows["seed"].astype(str), rows[column])}, dtype=float)


def _accuracies(parsing: pd.DataFrame, parser: str, severity: str) -> dict[str, pd.Series]:
    return {c: _seeds(parsing, parser, c, "accuracy", severity)
            for c in ("original", "photographed", "unwarped", "oracle_unwarped")}


def _recovery_tests(acc: dict[str, pd.Series], unwarped: str, label: str) -> list[SeedTest]:
    """Per seed: the recovered fraction (unwarped - photographed) / (original - photographed) above 0.5 ("most"), and
    the relative drop (original - unwarped) / original above 0 ("not all")."""
    drop = acc["original"] - acc["photographed"]
    recovered = (acc[unwarped] - acc["photographed"]) / drop.where(drop != 0)
    remaining = (acc["original"] - acc[unwarped]) / acc["original"]
    return [SeedTest(f"recovered fraction, {label}", recovered, ">", RECOVERED),
            SeedTest(f"relative drop left after unwarping, {label}", remaining, ">", 0.0)]


def _paper_recovered() -> float:
    acc = {k: 1 - v for k, v in PAPER_EXAMPLE.items()}
    return (acc["unwarped"] - acc["photographed"]) / (acc["original"] - acc["photographed"])


def parsing_claims(parsing: pd.DataFrame, parser: str, threshold: float, suffix: str = "",
                   pooled_recovery: bool = False) -> list[Claim]:
    """The drop (severities pooled) and the unwarping recovery, judged on the geometric capture (severity 'geo'):
    the claim is about undoing geometric distortion, and the oracle unwarp (true homography) on the same capture is
    its positive control. With pooled_recovery the severities-pooled recovery is reported as a separate row."""
    label = f" ({parser})"
    acc = _accuracies(parsing, parser, "all")
    claims = [Claim(
        f"parsing_drop{suffix}",
        "Moving from digital-born to photographed documents drops parsing accuracy sharply (paper: 18% for MLLMs, "
        f"22-25% for specialised parsers){label}",
        f"per seed, the relative accuracy drop (1 - overall edit) original -> photographed, severities pooled, of "
        f"{parser}: 95% t interval above {threshold}",
        [SeedTest(f"relative accuracy drop photographed, {parser}",
                  _seeds(parsing, parser, "photographed", "relative_drop"), ">", threshold)],
        EVIDENCE_PARSING,
        {"value": 0.22, "where": "abstract: specialised parsing models' average decrease of 22% (MLLMs 18%; the "
                                 "Topdu/DocPTBench README gives 25% for specialists)"},
        per_seed={"accuracy original": acc["original"], "accuracy photographed": acc["photographed"]},
        measured={"accuracy_original": _value(parsing, parser, "original", "accuracy"),
                  "accuracy_photographed": _value(parsing, parser, "photographed", "accuracy")})]
    geo = _accuracies(parsing, parser, GEOMETRIC)
    oracle_tests = _recovery_tests(geo, "oracle_unwarped", f"oracle unwarp, geometric{label}")
    claims.append(Claim(
        f"unwarp_recovers_most{suffix}",
        "Unwarping the photograph recovers most, but not all, of the parsing accuracy lost (paper example: edit "
        f"10.5 -> 37.5 -> 15.7); judged on the pre-registered geometric capture with the detected-quad unwarper{label}",
        f"per seed on the geometric capture of {parser}: recovered fraction (unwarped - photographed) / (original - "
        f"photographed) with 95% t interval above {RECOVERED}, and relative drop left after unwarping above 0; the "
        "oracle unwarp (true homography) passing both is a required positive control",
        _recovery_tests(geo, "unwarped", f"geometric{label}"),
        EVIDENCE_PARSING,
        {"value": round(_paper_recovered(), 3),
         "where": "Topdu/DocPTBench README: PaddleOCR-VL overall edit (En) 10.5 -> 37.5 -> 15.7 (recovered fraction)"},
        source="paper",
        controls=[Control(f"oracle_unwarp_{k}", "positive", "oracle unwarp (true homography) on the same geometric "
                          "capture: the same test must hold", test)
                  for k, test in zip(("recovers", "not_all"), oracle_tests)],
        per_seed={"accuracy original": geo["original"], "accuracy photographed (geometric)": geo["photographed"],
                  "accuracy unwarped (geometric)": geo["unwarped"],
                  "accuracy oracle unwarped (geometric)": geo["oracle_unwarped"]}))
    if pooled_recovery:
        claims.append(Claim(
            f"unwarp_recovers_most_pooled{suffix}",
            "The same recovery criterion on the severity levels pooled, where light, shading, blur and noise dominate "
            f"the damage (no unwarp removes those; reported for completeness){label}",
            f"per seed, severities pooled, of {parser}: recovered fraction with 95% t interval above {RECOVERED}, and "
            "relative drop left after unwarping above 0 (no control, as before v2; the oracle's values beside it)",
            _recovery_tests(acc, "unwarped", f"severities pooled{label}"),
            EVIDENCE_PARSING,
            {"value": round(_paper_recovered(), 3),
             "where": "Topdu/DocPTBench README: PaddleOCR-VL overall edit (En) 10.5 -> 37.5 -> 15.7"},
            source="paper",
            per_seed={"accuracy unwarped": acc["unwarped"], "accuracy oracle unwarped": acc["oracle_unwarped"]}))
    return claims


def translation_claim(parsing: pd.DataFrame, translation: pd.DataFrame, parser: str) -> Claim:
    """The paper's drops are differences in points (its Fig. 1 / README: MLLM En edit 0.23 -> 0.41 = '18%',
    BLEU 44.38 -> 34.10 and 41.41 -> 28.22 = '12%'): parsing = rise of the overall edit distance x 100,
    translation = fall of BLEU (0-100), both original -> photographed (severities pooled). The claim is about MLLMs
    translating the photographed page end to end: here OCR text goes through rule-based MT on both sides (OCR error
    propagation), so it is decided at scale=paper data=real (issue #59)."""
    edit = {c: _seeds(parsing, parser, c, "overall_edit") for c in ("original", "photographed")}
    bleu = {c: _seeds(translation, parser, c, "bleu") for c in ("original", "photographed")}
    bleu_drop = bleu["original"] - bleu["photographed"]
    parsing_points = 100 * (edit["photographed"] - edit["original"])
    return Claim(
        "translation_drop_smaller",
        "Translation quality falls with photographing, by fewer points than parsing (paper: BLEU -12 points vs edit "
        f"distance +18 points for MLLMs) ({parser} + Apertium: OCR error propagation; BLEU points vs overall edit x 100)",
        "per seed: BLEU points lost original -> photographed with 95% t interval above 0, and parsing points (overall "
        "edit x 100) gained minus BLEU points lost with paired 95% t interval above 0; decided at scale=paper "
        "data=real (MLLM translation of the photographed page)",
        [SeedTest(f"BLEU drop points, {parser}", bleu_drop, ">", 0.0),
         SeedTest(f"parsing points - BLEU points, {parser}", paired(parsing_points, bleu_drop), ">", 0.0)],
        EVIDENCE_TRANSLATION + ["tables/parsing.csv"],
        {"value": 12, "where": "abstract: MLLMs' average drop of 12% in translation (18% in parsing); the paper's "
                               "Fig. 1 reads them as points"},
        decided_at="paper", decided_data="real",
        per_seed={"parsing drop points": parsing_points,
                  "chrF drop points": _seeds(translation, parser, "original", "chrf")
                  - _seeds(translation, parser, "photographed", "chrf")},
        measured={"bleu_relative_drop": _value(translation, parser, "photographed", "bleu_relative_drop"),
                  "parsing_relative_drop": _value(parsing, parser, "photographed", "relative_drop"),
                  "steds_relative_drop": _value(translation, parser, "photographed", "steds_relative_drop")})


def build(parsing: pd.DataFrame, translation: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    primary, threshold = str(cfg.claims.parser), float(cfg.claims.parsing_drop)
    claims = parsing_claims(parsing, primary, threshold, pooled_recovery=True)
    if "tesseract" in set(parsing.parser) and primary != "tesseract":
        claims += parsing_claims(parsing, "tesseract", threshold, "_tesseract")
    claims.append(translation_claim(parsing, translation, primary))
    severities = [str(s) for s in cfg.severities]
    edits = {s: _seeds(parsing, primary, "photographed", "overall_edit", s) for s in severities}
    claims.append(Claim(
        "severity_monotone", f"Parsing degradation grows monotonically with capture severity ({primary}, photographed)",
        f"per seed, overall edit of {primary} (photographed) at each severity minus at the one below: each paired 95% t "
        "interval above 0 (one test per step, all must hold)",
        [SeedTest(f"edit severity {b} - severity {a}", paired(edits[b], edits[a]), ">", 0.0)
         for a, b in zip(severities, severities[1:])],
        EVIDENCE_PARSING, {"value": None, "where": "brief's criterion; the paper reports no severity levels"},
        source="brief", per_seed={f"edit severity {s}": v for s, v in edits.items()}))
    claims.append(Claim(
        "mllm_vs_specialist", "MLLMs lose 18% (parsing) and 12% (translation); specialised parsing models 22%",
        "no test: needs MLLM parsers and translators and specialist parsers on the DocPTBench release", [],
        ["tables/parsing.csv"],
        {"value": "MLLMs 18% parsing, 12% translation; specialists 22%", "where": "abstract"},
        decided_at="paper", decided_data="real",
        why_not_tested="no MLLM or specialist document parser runs offline and data=real (topdu/DocPTBench) is not "
        "wired (the stages refuse it); the comparison needs both (issue #59 items 5-6)"))
    claims.append(Claim(
        "benchmark_size", "DocPTBench: over 1,300 photographed documents, eight translation scenarios, human-verified "
        "annotations for parsing and translation",
        "no test: a property of the release", [], ["tables/parsing.csv"],
        {"value": "over 1,300 documents; 8 translation scenarios", "where": "abstract (README: 1,381 documents)"},
        decided_at="paper", decided_data="real",
        why_not_tested="a property of the DocPTBench release (Hugging Face topdu/DocPTBench), which data=real does not "
        "fetch yet (issue #59 item 6); the embedded pages are generated"))
    metrics = {"parsing": {p: {c: _value(parsing, p, c, "overall_edit") for c in
                               ("original", "photographed", "unwarped", "oracle_unwarped")}
                           for p in sorted(set(parsing.parser))},
               "translation_chrf": {p: {c: _value(translation, p, c, "chrf") for c in
                                        ("original", "photographed", "unwarped", "oracle_unwarped")}
                                    for p in sorted(set(translation.parser))}}
    return claims, metrics

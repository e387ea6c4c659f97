"""The abstract's claims as tests over pages (claims contract v2; design and history in JOURNAL.md), read from
tables/pages.csv (one row per page x parser x condition x severity). Every page is read under every condition, so each
claim is a per-page paired difference (or a ratio of their means) with a page-bootstrap interval (bootstrap.py).
Drops are stated in the paper's unit, points (overall edit x 100, BLEU 0-100), with the relative drop beside them.
The primary parser (config claims.parser: RapidOCR, the learned specialist) decides; Tesseract, the classical
baseline, gets its own entries for the parsing claims."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control
from neurips26.common.pipeline.resampled_test import resampling_stream
from neurips26.papers.docptbench import bootstrap
from neurips26.papers.docptbench.bootstrap import PageTest, mean_of, ratio_of_means

EVIDENCE_PARSING = ["tables/pages.csv", "tables/parsing.csv", "figures/edit_by_condition.png",
                    "figures/severity_curve.png"]
EVIDENCE_TRANSLATION = ["tables/pages.csv", "tables/translation.csv"]
GEOMETRIC = "geo"   # severity label of the geometric capture (experiments.GEOMETRIC)
PAGE = ["seed", "kind", "page_id"]
# The README's worked example of the paper (PaddleOCR-VL, English, overall edit x100): 10.5 -> 37.5 -> 15.7
PAPER_EXAMPLE = {"original": 0.105, "photographed": 0.375, "unwarped": 0.157}
RECOVERED = 0.5  # "recovers most": at least half of the accuracy lost (the criterion before v2)
UNWARP_HISTORY = ("the geometric capture was added after the first default run failed the severities-pooled test "
                  "(README, JOURNAL); the release's own photographed / unwarped pairs decide the claim")


class Pages:
    """Per-page values of one parser: {condition: Series over pages} for a column at a severity ('all' = the mean
    over the configured severity levels of each page)."""

    def __init__(self, pages: pd.DataFrame, parser: str, severities: list[str], resamples: int, base_seed: int,
                 decided_by: str | None = None):
        self.frame = pages[pages.parser == parser].assign(severity=lambda f: f.severity.astype(str))
        self.severities, self.resamples, self.base_seed = severities, resamples, base_seed
        self.decided_by = decided_by  # the larger scale that decides a straddling default-scale test

    def values(self, condition: str, column: str, severity: str = "all") -> pd.Series:
        rows = self.frame[self.frame.condition == condition]
        if condition == "original":
            rows = rows[rows.severity == "0"]
        elif severity == "all":
            rows = rows[rows.severity.isin(self.severities)]
        else:
            rows = rows[rows.severity == severity]
        return rows.groupby(PAGE)[column].mean()

    def test(self, name: str, columns: dict[str, pd.Series], statistic, side: str, bound: float,
             at_default: bool = False) -> PageTest:
        """A page-bootstrap test of statistic(columns) over documents (pages present in every column), with each
        seed's value beside it."""
        table = pd.DataFrame(columns).dropna()
        per_seed = {int(seed): float(statistic({c: g[c].to_numpy(float) for c in g.columns}))
                    for seed, g in table.groupby(level="seed")}
        return PageTest(name, documents(table), statistic, side, bound, self.resamples, self.base_seed, per_seed,
                        self.decided_by if at_default else None)

    def interval(self, name: str, columns: dict[str, pd.Series], statistic) -> dict:
        estimate, low, high, _ = bootstrap.interval(documents(pd.DataFrame(columns).dropna()), statistic,
                                                    self.resamples, resampling_stream(self.base_seed, name))
        return {name: estimate, f"{name}_ci_low": low, f"{name}_ci_high": high}


def documents(reads: pd.DataFrame) -> pd.DataFrame:
    """One row per document: a page read in several seeds (an R manual page two seeds both drew, under different
    captures) is one unit of the bootstrap, its reads averaged; generated pages are new documents in every seed."""
    return reads.groupby(level=["kind", "page_id"]).mean()


def _paper_recovered() -> float:
    acc = {k: 1 - v for k, v in PAPER_EXAMPLE.items()}
    return (acc["unwarped"] - acc["photographed"]) / (acc["original"] - acc["photographed"])


def _drop_claim(p: Pages, parser: str, bound: float, suffix: str) -> Claim:
    edit = {c: p.values(c, "overall_edit") for c in ("original", "photographed")}
    points = 100 * (edit["photographed"] - edit["original"])
    relative = p.interval("relative_accuracy_drop", {"lost": edit["photographed"] - edit["original"],
                                                     "acc": 1 - edit["original"]}, ratio_of_means("lost", "acc"))
    return Claim(
        f"parsing_drop{suffix}",
        "Moving from digital-born to photographed documents drops parsing accuracy sharply (paper: 18 points for "
        f"MLLMs, 22 for specialised parsers) ({parser})",
        f"per page, overall edit x 100 photographed (severities pooled) minus original, of {parser}: 95% page-"
        f"bootstrap interval of the mean above {bound:g} points (the relative accuracy drop beside it)",
        [p.test(f"parsing drop points, {parser}", {"d": points}, mean_of("d"), ">", bound, at_default=True)],
        EVIDENCE_PARSING,
        {"value": 22, "where": "abstract: specialised parsing models' average decrease of 22 (points; MLLMs 18; the "
                               "Topdu/DocPTBench README gives 25 for specialists)"},
        measured={**relative, "accuracy_original": float((1 - edit["original"]).mean()),
                  "accuracy_photographed": float((1 - edit["photographed"]).mean())})


def _recovery_tests(p: Pages, severity: str, unwarped: str, label: str) -> list[PageTest]:
    """Recovered fraction mean(acc_unwarped - acc_photo) / mean(acc_orig - acc_photo) above RECOVERED ("most"), and the
    points left, mean(edit_unwarped - edit_orig) x 100, above 0 ("not all")."""
    edit = {"original": p.values("original", "overall_edit"),
            "photographed": p.values("photographed", "overall_edit", severity),
            unwarped: p.values(unwarped, "overall_edit", severity)}
    gained = {"recovered": edit["photographed"] - edit[unwarped], "lost": edit["photographed"] - edit["original"]}
    return [p.test(f"recovered fraction, {label}", gained, ratio_of_means("recovered", "lost"), ">", RECOVERED),
            p.test(f"points left after unwarping, {label}", {"d": 100 * (edit[unwarped] - edit["original"])},
                   mean_of("d"), ">", 0.0)]


def _unwarp_claim(p: Pages, parser: str, suffix: str) -> Claim:
    label = f"geometric ({parser})"
    return Claim(
        f"unwarp_recovers_most{suffix}",
        "Unwarping the photograph recovers most, but not all, of the parsing accuracy lost (paper example: edit "
        f"10.5 -> 37.5 -> 15.7); judged on the geometric capture with the detected-quad unwarper ({parser})",
        f"per page on the geometric capture of {parser}: recovered fraction mean(unwarped - photographed) / "
        f"mean(original - photographed) with 95% page-bootstrap interval above {RECOVERED}, and points left after "
        "unwarping above 0; the oracle unwarp (true homography) passing both is a required positive control; "
        f"{UNWARP_HISTORY}",
        _recovery_tests(p, GEOMETRIC, "unwarped", label),
        EVIDENCE_PARSING,
        {"value": round(_paper_recovered(), 3),
         "where": "Topdu/DocPTBench README: PaddleOCR-VL overall edit (En) 10.5 -> 37.5 -> 15.7 (recovered fraction)"},
        source="paper", decided_at="paper", decided_data="real",
        controls=[Control(f"oracle_unwarp_{k}", "positive", "oracle unwarp (true homography) on the same geometric "
                          "capture: the same test must hold", test)
                  for k, test in zip(("recovers", "not_all"),
                                     _recovery_tests(p, GEOMETRIC, "oracle_unwarped", f"oracle unwarp, {label}"))])


def _pooled_unwarp_claim(p: Pages, parser: str) -> Claim:
    return Claim(
        "unwarp_recovers_most_pooled",
        "The same recovery criterion on the severity levels pooled, where light, shading, blur and noise dominate "
        f"the damage (no unwarp removes those; the criterion registered first) ({parser})",
        f"per page, severities pooled, of {parser}: recovered fraction with 95% page-bootstrap interval above "
        f"{RECOVERED}, and points left after unwarping above 0 (no control, as registered; the oracle's values "
        "beside it)",
        _recovery_tests(p, "all", "unwarped", f"severities pooled ({parser})"),
        EVIDENCE_PARSING,
        {"value": round(_paper_recovered(), 3),
         "where": "Topdu/DocPTBench README: PaddleOCR-VL overall edit (En) 10.5 -> 37.5 -> 15.7"},
        source="paper", decided_at="paper", decided_data="real",
        measured={"oracle_recovered_fraction": _recovery_tests(p, "all", "oracle_unwarped", "oracle, pooled")[0]
                  .measured["estimate"]})


def translation_claim(p: Pages, parser: str) -> Claim:
    """The paper's drops are differences in points (its Fig. 1 / README: MLLM En edit 0.23 -> 0.41 = '18%',
    BLEU 44.38 -> 34.10 and 41.41 -> 28.22 = '12%'). The claim is about MLLMs translating the photographed page end to
    end; here OCR text goes through the same rule-based MT on both sides, so these rows measure OCR error propagation
    into Apertium, and the claim is decided at scale=long (a small open MLLM on the release, issue #59 item 5)."""
    edit = {c: p.values(c, "overall_edit") for c in ("original", "photographed")}
    bleu = {c: p.values(c, "bleu") for c in ("original", "photographed")}
    chrf = {c: p.values(c, "chrf") for c in ("original", "photographed")}
    bleu_drop = bleu["original"] - bleu["photographed"]
    parsing_points = 100 * (edit["photographed"] - edit["original"])
    return Claim(
        "translation_drop_smaller",
        "Translation quality falls with photographing, by fewer points than parsing (paper: BLEU -12 points vs edit "
        f"distance +18 points for MLLMs); here {parser} + Apertium, i.e. OCR error propagation, not MLLM translation",
        "per page: BLEU points lost original -> photographed with 95% page-bootstrap interval above 0, and parsing "
        "points (overall edit x 100) gained minus BLEU points lost above 0; decided at scale=long data=real (a small "
        "open MLLM's end-to-end translation of the release's originals and photographs, scored against translation_gt)",
        [p.test(f"BLEU drop points (OCR propagation), {parser}", {"d": bleu_drop}, mean_of("d"), ">", 0.0),
         p.test(f"parsing points - BLEU points (OCR propagation), {parser}", {"d": parsing_points - bleu_drop},
                mean_of("d"), ">", 0.0)],
        EVIDENCE_TRANSLATION + ["tables/parsing.csv"],
        {"value": 12, "where": "abstract: MLLMs' average drop of 12% in translation (18% in parsing); the paper's "
                               "Fig. 1 reads them as points"},
        decided_at="long", decided_data="real",
        measured={"parsing_drop_points": float(parsing_points.mean()),
                  "chrf_drop_points": float((chrf["original"] - chrf["photographed"]).mean()),
                  **p.interval("bleu_relative_drop", {"lost": bleu_drop, "base": bleu["original"]},
                               ratio_of_means("lost", "base"))})


def _severity_claim(p: Pages, parser: str, severities: list[str]) -> Claim:
    edits = {s: p.values("photographed", "overall_edit", s) for s in severities}
    return Claim(
        "severity_monotone", f"Parsing degradation grows monotonically with capture severity ({parser}, photographed)",
        f"per page, overall edit x 100 of {parser} (photographed) at each severity minus at the one below: each 95% "
        "page-bootstrap interval of the mean above 0 (one test per step, all must hold)",
        [p.test(f"edit points severity {b} - severity {a}", {"d": 100 * (edits[b] - edits[a])}, mean_of("d"), ">", 0.0,
                at_default=True) for a, b in zip(severities, severities[1:])],
        EVIDENCE_PARSING, {"value": None, "where": "brief's criterion; the paper reports no severity levels"},
        source="brief")


def _untested_claims() -> list[Claim]:
    return [
        Claim("mllm_vs_specialist", "MLLMs lose 18% (parsing) and 12% (translation); specialised parsing models 22%",
              "no test at default: needs MLLM parsers and translators and a specialist parser (PaddleOCR-VL or "
              "MinerU2.5) on the same release pages", [], ["tables/parsing.csv"],
              {"value": "MLLMs 18% parsing, 12% translation; specialists 22%", "where": "abstract"},
              decided_at="long", decided_data="real",
              why_not_tested="no MLLM or specialist document parser runs on the CPU default; decided at scale=long "
              "data=real (one GPU: a small open MLLM with the official prompts and a specialist parser on a fixed "
              "subset of the release, issue #59 item 5)"),
        Claim("benchmark_size", "DocPTBench: over 1,300 photographed documents, eight translation scenarios, "
              "human-verified annotations for parsing and translation",
              "no test: a property of the release", [], ["tables/parsing.csv"],
              {"value": "over 1,300 documents; 8 translation scenarios", "where": "abstract (README: 1,381 documents)"},
              decided_at="paper", decided_data="real",
              why_not_tested="a property of the DocPTBench release (Hugging Face topdu/DocPTBench), which data=real "
              "does not fetch yet (issue #59 item 6); the embedded pages are generated"),
    ]


def build(pages: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    c = cfg.claims
    primary, bound = str(c.parser), float(c.parsing_drop_points)
    severities = [str(s) for s in cfg.severities]
    resamples, base_seed = int(c.bootstrap.resamples), int(c.bootstrap.seed)
    # a claim decided at default whose interval straddles its bound names the scale with more pages
    larger = None if cfg.get("scale_name") == "paper" else "scale=paper (20 pages a kind and seed)"
    p = Pages(pages, primary, severities, resamples, base_seed, larger)
    claims = [_drop_claim(p, primary, bound, ""), _unwarp_claim(p, primary, ""), _pooled_unwarp_claim(p, primary)]
    if "tesseract" in set(pages.parser) and primary != "tesseract":
        t = Pages(pages, "tesseract", severities, resamples, base_seed, larger)
        claims += [_drop_claim(t, "tesseract", bound, "_tesseract"), _unwarp_claim(t, "tesseract", "_tesseract")]
    claims += [translation_claim(p, primary), _severity_claim(p, primary, severities), *_untested_claims()]
    metrics = {"pages": int(p.values("original", "overall_edit").size),
               "parsing": {parser: {cond: float(np.nanmean(Pages(pages, parser, severities, 1, 0)
                                                           .values(cond, "overall_edit")))
                                    for cond in ("original", "photographed", "unwarped", "oracle_unwarped")}
                           for parser in sorted(set(pages.parser))}}
    return claims, metrics

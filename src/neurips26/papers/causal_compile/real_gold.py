"""The held-out real-text gold set (issue 56 item 6; data/gold/causal_compile_heldout_protocol.md): abstracts drawn and
labelled by a written protocol before the extractor saw them. Scored as the protocol says: recall and precision of
the effect statements (their written numbers located), and the canonical accuracy of the matched statements (scale,
log ratio and CI equal the gold's), each with an exact binomial interval. The same scoring runs on degenerate
canonicalisers (sign-flipped, constant) and on the gold statements themselves (an oracle extractor), so the claim's
controls are measured, never typed."""

from __future__ import annotations

import math

import pandas as pd

from neurips26.common.data.medline import abstract_text, iter_records
from neurips26.papers.causal_compile.gold_canonical import canonical
from neurips26.papers.causal_compile.real_text import extract_statements

NUMBER_TOL = 0.006  # written numbers agree up to rounding in the last printed digit
LOG_TOL = 0.01  # canonical log values agree
SUBJECTS = ("compiled", "flipped", "constant")


def load_abstracts(paths, pmids) -> list[dict]:
    """[{pmid, text}] of the records with these PMIDs (any publication type), in the order of `pmids`."""
    wanted = {str(p) for p in pmids}
    found = {}
    for el in iter_records(paths):
        pmid = el.findtext(".//PMID")
        if pmid in wanted and pmid not in found:
            found[pmid] = abstract_text(el)
    missing = wanted - set(found)
    if missing:
        raise ValueError(f"gold abstracts not in the MEDLINE files: {sorted(missing)}")
    return [{"pmid": str(p), "text": found[str(p)]} for p in pmids]


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _close(a, b, tol) -> bool:
    a, b = _num(a), _num(b)
    return a is not None and b is not None and abs(a - b) <= tol


def numbers_agree(e: dict, g: dict) -> bool:
    """Same kind and the written numbers agree (the estimate; both arms in order; the percent change)."""
    if e["kind"] != g["kind"]:
        return False
    if e["kind"] == "percent_pair":
        return _close(e.get("arm_a"), g.get("arm_a"), NUMBER_TOL) and _close(e.get("arm_b"), g.get("arm_b"), NUMBER_TOL)
    return _close(e.get("estimate"), g.get("estimate"), NUMBER_TOL)


def record(s: dict) -> dict:
    """The canonical record of a statement: scale, log ratio and the CI's log bounds."""
    log, low, high = canonical(
        s["kind"],
        s.get("estimate"),
        s.get("ci_low"),
        s.get("ci_high"),
        s.get("arm_a"),
        s.get("arm_b"),
        s.get("direction", 1),
    )
    return {"scale": s["scale"], "log": log, "low": low, "high": high}


def degenerate(rec: dict, subject: str, mean: float) -> dict:
    """The record as a degenerate canonicaliser gives it: sign-flipped, or every value the mean (CI width kept)."""
    if subject == "compiled" or rec["log"] is None:
        return rec
    if subject == "flipped":
        neg = [None if v is None else -v for v in (rec["log"], rec["high"], rec["low"])]
        return {**rec, "log": neg[0], "low": neg[1], "high": neg[2]}
    shift = mean - rec["log"]
    return {**rec, **{k: None if rec[k] is None else rec[k] + shift for k in ("log", "low", "high")}}


def canonical_agrees(e: dict, g: dict) -> bool:
    """Same scale, log ratio within LOG_TOL, and the CI present in both with bounds within LOG_TOL or absent in both."""
    if e["scale"] != g["scale"] or not _close(e["log"], g["log"], LOG_TOL):
        return False
    if g["low"] is None and g["high"] is None:
        return e["low"] is None and e["high"] is None
    return _close(e["low"], g["low"], LOG_TOL) and _close(e["high"], g["high"], LOG_TOL)


def match(extracted: list[dict], gold: list[dict]) -> list[tuple[int, int]]:
    """One-to-one pairs (extracted index, gold index) within each abstract, in reading order."""
    used, pairs = set(), []
    for i, e in enumerate(extracted):
        for j, g in enumerate(gold):
            if j not in used and g["pmid"] == e["pmid"] and numbers_agree(e, g):
                used.add(j)
                pairs.append((i, j))
                break
    return pairs


def _gold_statements(gold: pd.DataFrame) -> list[dict]:
    rows = gold[gold["kind"] != "none"].astype(object).where(gold.notna(), None)
    return [{**r, "pmid": str(r["pmid"])} for r in rows.to_dict("records")]


def _extracted(abstracts: list[dict], extract) -> list[dict]:
    return [s for a in abstracts for s in extract(a["pmid"], a["text"])]


def evaluate(extracted: list[dict], gold: list[dict]) -> dict:
    """Counts for recall, precision and canonical accuracy, for the extractor and each degenerate canonicaliser."""
    pairs = match(extracted, gold)
    logs = [r["log"] for r in map(record, extracted) if r["log"] is not None]
    mean = sum(logs) / len(logs) if logs else 0.0
    out = {"gold_statements": len(gold), "extracted": len(extracted), "found": len(pairs)}
    for subject in SUBJECTS:
        out[f"canonical_correct_{subject}"] = sum(
            canonical_agrees(degenerate(record(extracted[i]), subject, mean), record(gold[j])) for i, j in pairs
        )
    for kind in ("ratio", "percent_pair", "relative_reduction"):
        out[f"gold_{kind}"] = sum(g["kind"] == kind for g in gold)
        out[f"found_{kind}"] = sum(gold[j]["kind"] == kind for _, j in pairs)
    return out


def score(abstracts: list[dict], gold: pd.DataFrame, extract=extract_statements) -> tuple[list[dict], dict]:
    """Statement rows of the held-out abstracts (matched or not, with their canonical record) and the summary:
    the extractor's counts, and the oracle's (the gold statements given as the extraction: the positive control)."""
    statements = _gold_statements(gold)
    extracted = _extracted(abstracts, extract)
    matched = dict(match(extracted, statements))
    rows = [
        {
            **{k: s.get(k) for k in ("pmid", "kind", "scale", "estimate", "ci_low", "ci_high", "arm_a", "arm_b", "span")},
            "log_ratio": record(s)["log"],
            "matched_gold": i in matched,
            "canonical_correct": i in matched and canonical_agrees(record(s), record(statements[matched[i]])),
        }
        for i, s in enumerate(extracted)
    ]
    summary = {"abstracts": len(abstracts), **evaluate(extracted, statements)}
    summary.update({f"oracle_{k}": v for k, v in evaluate(statements, statements).items()})
    return rows, summary


def summary_table(development: dict, heldout: dict) -> pd.DataFrame:
    """tables/real_text.csv: the development set's summary and the held-out one's (keys prefixed 'heldout_')."""
    values = {**development, **{f"heldout_{k}": v for k, v in heldout.items()}}
    return pd.DataFrame({"metric": list(values), "value": list(values.values())})

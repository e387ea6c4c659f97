"""The four stage scorers of DocScope's official code (score_pages / score_bbox / score_facts / score_answer), with offline
judges in place of the multimodal / LLM judges, and the complete-evidence-chain metric.

- pages: precision, recall, F1 of the predicted page set against the gold pages (per question; macro = mean over
  questions, micro = pooled counts). Unanswerable questions (no gold pages) are left out of page scoring.
- regions: only pages both in gold and predicted are judged (as score_bbox.py). Each gold box gets a label against the
  UNION of the predicted boxes on its page: covered (>= 90% of it covered), imprecise (> 10%), not_covered. The offline
  judge measures area coverage (`box_label`); `ink_coverage` measures the share of the gold box's rendered content
  (dark pixels at 144 dpi) that the union covers, the quantity the official 90% rule speaks about (calibration gold).
- facts: each gold fact is consistent if some predicted fact states all numbers of the gold fact (number matching) and
  its MiniLM cosine with the gold fact is >= a threshold.
- answer: an MMLongBench-style rule scorer (numbers: first number of the prediction equals the gold integer, or within
  1% for a float; strings: normalised equality or the normalised gold contained in a short prediction; Unanswerable).
- chain complete: answer correct AND page recall = 1 AND every gold box covered AND every gold fact consistent.
"""

from __future__ import annotations

import re

import numpy as np

from neurips26.common.docbench.documents import box_coverage

LABELS = ("covered", "imprecise", "not_covered")


# ---- pages -------------------------------------------------------------------------------------------------------
def page_prf(gold: list[int], pred: list[int]) -> tuple[float, float, float]:
    g, p = set(gold), set(pred)
    tp = len(g & p)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def page_micro(golds: list[list[int]], preds: list[list[int]]) -> tuple[float, float, float]:
    tp = sum(len(set(g) & set(p)) for g, p in zip(golds, preds))
    np_, ng = sum(len(set(p)) for p in preds), sum(len(set(g)) for g in golds)
    precision, recall = (tp / np_ if np_ else 0.0), (tp / ng if ng else 0.0)
    return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)


# ---- regions -----------------------------------------------------------------------------------------------------
def label_of(coverage: float, covered: float = 0.9, imprecise: float = 0.1) -> str:
    return "covered" if coverage >= covered else "imprecise" if coverage > imprecise else "not_covered"


def box_label(gold_box, pred_boxes, covered: float = 0.9, imprecise: float = 0.1) -> str:
    """Offline region judge: area of the gold box covered by the union of the predicted boxes."""
    return label_of(box_coverage(tuple(gold_box), [tuple(b) for b in pred_boxes]), covered, imprecise)


def ink_coverage(image: np.ndarray, dpi: float, gold_box, pred_boxes, dark: int = 160) -> float:
    """Share of the dark pixels inside the gold box (image rendered at `dpi`, boxes in points) inside the predicted union.
    A gold box without ink falls back to area coverage."""
    s = dpi / 72.0
    h, w = image.shape[:2]

    def px(b):
        return (max(int(np.floor(b[0] * s)), 0), max(int(np.floor(b[1] * s)), 0),
                min(int(np.ceil(b[2] * s)), w), min(int(np.ceil(b[3] * s)), h))  # fmt: skip

    x0, y0, x1, y1 = px(gold_box)
    ink = image[y0:y1, x0:x1].mean(axis=2) < dark
    if not ink.any():
        return box_coverage(tuple(gold_box), [tuple(b) for b in pred_boxes])
    mask = np.zeros_like(ink)
    for b in pred_boxes:
        a0, b0, a1, b1 = px(b)
        mask[max(b0 - y0, 0) : max(b1 - y0, 0), max(a0 - x0, 0) : max(a1 - x0, 0)] = True
    return float((ink & mask).sum() / ink.sum())


def region_labels(gold: list[dict], pred: list[tuple[int, tuple]], judge=box_label) -> list[str | None]:
    """One label per gold evidence item ({"page", "bbox"} in points); None when its page was not predicted (the
    official scorer judges only pages in gold and predicted). `pred`: (page, box in points)."""
    pred_pages = {p for p, _ in pred}
    out = []
    for ev in gold:
        if ev["page"] not in pred_pages:
            out.append(None)
        else:
            out.append(judge(ev["bbox"], [b for p, b in pred if p == ev["page"]]))
    return out


# ---- facts -------------------------------------------------------------------------------------------------------
_NUM = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


def numbers(text: str) -> list[float]:
    out = []
    for tok in _NUM.findall(text):
        try:
            out.append(float(tok.replace(",", "")))
        except ValueError:
            continue
    return out


def fact_consistent(gold: str, pred: str, cosine: float, threshold: float) -> bool:
    """Number matching (every number of the gold fact appears in the predicted one) + MiniLM cosine >= threshold."""
    pn = numbers(pred)
    return all(any(abs(g - p) < 1e-9 for p in pn) for g in numbers(gold)) and cosine >= threshold


def fact_labels(gold: list[str], pred: list[str], embed, threshold: float) -> list[bool]:
    """For each gold fact: is some predicted fact consistent with it. `embed(texts) -> unit vectors`.
    The encoder is only asked about pairs it can decide: a pair whose numbers differ is inconsistent whatever its
    cosine, and an identical pair has cosine 1 (so a job whose facts are all exact or all wrong never loads MiniLM)."""
    if not gold:
        return []
    if not pred:
        return [False] * len(gold)
    nums_ok = [[all(any(abs(g - p) < 1e-9 for p in numbers(pf)) for g in numbers(gf)) for pf in pred] for gf in gold]
    need = any(ok and gf != pf for gf, row in zip(gold, nums_ok) for pf, ok in zip(pred, row))
    if need:
        g, p = embed(gold), embed(pred)
        cos = g @ p.T
    else:
        cos = np.ones((len(gold), len(pred)))
    return [
        any(nums_ok[i][j] and (gf == pf or float(cos[i, j]) >= threshold) for j, pf in enumerate(pred))
        for i, gf in enumerate(gold)
    ]


# ---- answers -----------------------------------------------------------------------------------------------------
_UNANS = ("unanswerable", "not answerable", "cannot be answered", "can not be answered", "not mentioned", "no answer")
_STOP = {"the", "a", "an", "division", "section", "of"}


def _norm(s: str) -> str:
    words = re.sub(r"[^\w\s.]", " ", s.lower()).replace(".", " ").split()
    return " ".join(w for w in words if w not in _STOP)


def answer_correct(gold: str, pred: str) -> bool:
    g, p = gold.strip(), (pred or "").strip()
    if g.lower() == "unanswerable":
        return any(k in p.lower() for k in _UNANS)
    if any(k in p.lower() for k in _UNANS):
        return False
    try:
        gv = float(g.replace(",", ""))
    except ValueError:
        gv = None
    if gv is not None:
        pn = [v for v in numbers(p)]
        if not pn:
            return False
        if float(gv).is_integer() and "." not in g:
            return abs(pn[0] - gv) < 1e-9
        return abs(pn[0] - gv) <= 0.01 * max(abs(gv), 1e-9)
    gn, pn_ = _norm(g), _norm(p)
    return bool(gn) and (gn == pn_ or (gn in pn_ and len(pn_.split()) <= len(gn.split()) + 3))


# ---- agreement ---------------------------------------------------------------------------------------------------
def cohen_kappa(a: list, b: list) -> float:
    """Cohen's kappa of two label lists (1.0 when both are constant and equal)."""
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two label lists of the same, non-zero length")
    cats = sorted(set(a) | set(b), key=str)
    idx = {c: i for i, c in enumerate(cats)}
    m = np.zeros((len(cats), len(cats)))
    for x, y in zip(a, b):
        m[idx[x], idx[y]] += 1
    n = m.sum()
    po = np.trace(m) / n
    pe = float((m.sum(0) * m.sum(1)).sum() / n**2)
    return 1.0 if pe >= 1.0 else float((po - pe) / (1 - pe))

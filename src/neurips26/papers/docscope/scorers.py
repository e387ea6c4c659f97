"""The four stage scorers of DocScope's official code (score_pages / score_bbox / score_facts / score_answer), with offline
judges in place of the multimodal / LLM judges, and the complete-evidence-chain metric.

- pages: precision, recall, F1 of the predicted page set (the pages of the citations) against the gold pages, per
  question with the official edge cases (unanswerable questions included: no gold and no citation scores 1; an empty
  prediction has precision 1); macro = mean over questions, micro = pooled counts.
- regions: only pages both in gold and predicted are judged (as score_bbox.py). Each gold box gets a label against the
  UNION of the predicted boxes on its page: covered (>= 90% of it covered), imprecise (> 10%), not_covered. The offline
  judge measures area coverage (`box_label`); `ink_coverage` measures the share of the gold box's rendered content
  (dark pixels at 144 dpi) that the union covers, the quantity the official 90% rule speaks about (calibration gold).
- facts: as score_facts.py, only the gold facts on pages both in gold and predicted are judged; a judged fact is
  consistent when the evidence unit immediately before an admissible citation (page field equal to the fact's page)
  states the same object, the same value and its qualifiers (offline judge `supports`: division, metric, year and
  value for the generated benchmark); fact score = consistent / judged.
- answer: an MMLongBench-style rule scorer (numbers: first number of the prediction equals the gold integer, or within
  1% for a float; strings: normalised equality or the normalised gold contained in a short prediction; Unanswerable).
- chain complete: answer correct AND page recall = 1 AND every gold box covered AND every gold fact consistent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from neurips26.common.docbench.documents import box_coverage

LABELS = ("covered", "imprecise", "not_covered")


# ---- pages -------------------------------------------------------------------------------------------------------
def page_prf(gold: list[int], pred: list[int]) -> tuple[float, float, float]:
    """Official edge cases (score_pages / reasoning_prompts.page_prf): no gold and no prediction -> 1, 1, 1; no gold but
    a prediction -> precision 0, recall 1, F1 0; a prediction that is empty while gold is not -> precision 1, recall 0."""
    g, p = set(gold), set(pred)
    if not g and not p:
        return 1.0, 1.0, 1.0
    if not g:
        return 0.0, 1.0, 0.0
    if not p:
        return 1.0, 0.0, 0.0
    tp = len(g & p)
    precision, recall = tp / len(p), tp / len(g)
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


@dataclass(frozen=True)
class FactKey:
    """What a gold fact asserts, as the official judge reads it: the object (`entity`), the value, and the qualifiers
    the evidence must also support (R1: year, metric, unit, ...). The official benchmark's facts carry `key_entity` and
    `key_value`; the generated benchmark's are (division, value) with qualifiers (metric, year)."""

    page: int
    text: str
    entity: str
    value: str
    qualifiers: tuple[str, ...] = ()


def _phrase(needle: str, hay: str) -> bool:
    """`needle` occurs in `hay` as whole words (case and spacing ignored)."""
    words = re.findall(r"[^\W_]+", needle.lower())
    return (
        bool(words)
        and re.search(r"(?<![^\W_])" + r"\W+".join(map(re.escape, words)) + r"(?![^\W_])", hay.lower()) is not None
    )


def _value_in(value: str, unit: str) -> bool:
    wanted = numbers(value)
    if wanted and re.fullmatch(r"[-\d,.\s%$]+", value.strip()):
        have = numbers(unit)
        return all(any(abs(w - h) < 1e-9 for h in have) for w in wanted)
    return _phrase(value, unit)


def supports(key: FactKey, unit: str) -> bool:
    """Offline fact judge on one evidence unit: the same object, the same value and every qualifier (a right value of
    another division, metric or year is not_consistent, as in the official prompt's 'right value but wrong object')."""
    if not key.entity and not key.value:
        return False  # nothing the offline judge can check (a release fact without key_entity / key_value)
    return ((not key.entity or _phrase(key.entity, unit)) and (not key.value or _value_in(key.value, unit))
            and all(_phrase(q, unit) for q in key.qualifiers))  # fmt: skip


def numbers_only(key: FactKey, unit: str) -> bool:
    """The weaker judge kept as a negative control for calibration: every number of the gold fact is in the unit."""
    have = numbers(unit)
    return all(any(abs(g - h) < 1e-9 for h in have) for g in numbers(key.text))


def fact_labels(keys: list[FactKey], traj, judge=supports) -> list[bool | None]:
    """The official fact stage (score_facts.py): a gold fact is judged only when its page is both gold and predicted
    (None otherwise: not counted); it is consistent when some evidence unit before an admissible citation (page field
    equal to the fact's page; doc_page never counts) supports it. `traj`: a parsed Trajectory."""
    predicted = set(traj.pages)
    return [any(judge(k, u) for u in traj.units_on(k.page)) if k.page in predicted else None for k in keys]


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

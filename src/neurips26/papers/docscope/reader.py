"""The extractive reader: finds the value of each fact a question needs by term proximity on the page's text layer,
answers from the values, and cites what it read at page, paragraph (text-layer block) or line granularity.

For one needed fact (division, metric, year) every number token on the candidate pages is scored by
sum over the three key terms of exp(-distance to the term's nearest occurrence / lambda) (distances between word-box
centres in points, horizontal offsets scaled by `x_scale`: words of one line or one table row are near); the best-scoring
number is read. Below `threshold` the fact counts as not found and the reader
answers Unanswerable. Layout matters: in a paragraph the terms sit next to the value; in a table the year is a column
header and the division a title above; in a bar chart the year label sits under the bar and the value above it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from neurips26.common.docbench.doc_benchmark import answer_of
from neurips26.papers.docscope.index import Page
from neurips26.papers.docscope.trajectory import UNANSWERABLE, Citation, Trajectory

_Q = [
    ("lookup", re.compile(r"What was the (?P<m>.+?) of the (?P<d>\w+) division in (?P<y>\d{4})\?")),
    ("difference", re.compile(
        r"By how much did the (?P<m>.+?) of the (?P<d>\w+) division exceed that of the (?P<d2>\w+) division in (?P<y>\d{4})\?"  # noqa: E501
    )),
    ("total", re.compile(r"What was the combined (?P<m>.+?) of the (?P<ds>.+?) divisions in (?P<y>\d{4})\?")),
    ("highest", re.compile(r"Which of the (?P<ds>.+?) divisions reported the highest (?P<m>.+?) in (?P<y>\d{4})\?")),
]  # fmt: skip


@dataclass
class Need:
    op: str
    divisions: list[str]
    metric: str
    year: int


def understand(question: str) -> Need | None:
    for op, pattern in _Q:
        m = pattern.fullmatch(question.strip())
        if m:
            if "ds" in m.groupdict():
                ds = [d.strip() for d in re.split(r",| and ", m.group("ds")) if d.strip()]
            else:
                ds = [m.group("d")] + ([m.group("d2")] if m.groupdict().get("d2") else [])
            return Need(op, ds, m.group("m"), int(m.group("y")))
    return None


def _centre(b):
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def _clean(t: str) -> str:
    return t.strip(".,;:()").lower()


def _value(tok: str) -> int | None:
    t = tok.strip(".;:()")
    if not re.fullmatch(r"\d{1,3}(,\d{3})+|\d+", t):
        return None
    v = int(t.replace(",", ""))
    if "," not in t and 1990 <= v <= 2035:
        return None  # a year, not a value
    return v


def _inside(box, region, pad=2.0):
    cx, cy = _centre(box)
    return region[0] - pad <= cx <= region[2] + pad and region[1] - pad <= cy <= region[3] + pad


SLACK = 0.0  # points: terms this near count fully (30 was tried on the pilot seed: worse, see JOURNAL.md)


@dataclass
class Reading:
    value: int
    score: float
    page: int
    word: int


def read_fact(
    pages: list[Page], division: str, metric: str, year: int, lam: float, regions: dict | None = None, x_scale: float = 0.2
) -> Reading | None:
    """The best-scoring number for (division, metric, year) on `pages` (only inside `regions[page]` boxes if given)."""
    best = None
    terms = {"division": [division.lower()], "metric": [t for t in metric.lower().split()], "year": [str(year)]}
    for page in pages:
        boxes = regions.get(page.number, []) if regions is not None else None
        words = [(i, w) for i, w in enumerate(page.words) if boxes is None or any(_inside(w["bbox"], r) for r in boxes)]
        occ = {k: [_centre(w["bbox"]) for _, w in words if _clean(w["text"]) in v] for k, v in terms.items()}
        if not any(occ.values()):
            continue
        for i, w in words:
            v = _value(w["text"])
            if v is None:
                continue
            cx, cy = _centre(w["bbox"])
            score = 0.0
            for pts in occ.values():
                if pts:
                    d = max(min(math.hypot(x_scale * (cx - x), cy - y) for x, y in pts) - SLACK, 0.0)
                    score += math.exp(-d / lam)
            if best is None or score > best.score:
                best = Reading(v, score, page.number, i)
    return best


def cite(page: Page, word: int, granularity: str) -> tuple:
    """The box the reader cites for a word it read (points, top-left origin)."""
    if granularity == "page":
        return (0.0, 0.0, page.size[0], page.size[1])
    for j, ln in enumerate(page.lines):
        if word in ln["words"]:
            if granularity == "line":
                return ln["bbox"]
            for b in page.blocks:
                if j in b["lines"]:
                    return b["bbox"]
    raise ValueError(f"word {word} is on no line of page {page.number}")


def _norm_box(box, size):
    w, h = size
    return (max(box[0] / w, 0.0), max(box[1] / h, 0.0), min(box[2] / w, 1.0), min(box[3] / h, 1.0))


def answer_trajectory(
    question: str,
    pages: list[Page],
    candidates: list[int],
    granularity: str,
    lam: float,
    threshold: float,
    regions: dict | None = None,
    page_label=str,
    x_scale: float = 0.2,
) -> Trajectory:
    """Read every needed fact from the candidate pages; state each in one sentence ending with the citation of what
    was read (with `regions`, the region box the word lies in: the oracle-region variant cites the gold boxes); answer
    or say Unanswerable."""
    need = understand(question)
    if need is None:
        return Trajectory([], UNANSWERABLE)
    by_number = {p.number: p for p in pages}
    cand = [by_number[c] for c in candidates if c in by_number]
    readings = []
    for d in need.divisions:
        r = read_fact(cand, d, need.metric, need.year, lam, regions, x_scale)
        if r is None or r.score < threshold:
            return Trajectory([], UNANSWERABLE)
        readings.append(r)
    citations = []
    for d, r in zip(need.divisions, readings):
        page = by_number[r.page]
        if regions is not None:
            box = next(b for b in regions[r.page] if _inside(page.words[r.word]["bbox"], b))
        else:
            box = cite(page, r.word, granularity)
        sentence = f"In {need.year}, the {d} division reported {need.metric} of {r.value:,}"
        citations.append(Citation(r.page, page_label(r.page), _norm_box(box, page.size), sentence))
    answer = answer_of(need.op, need.divisions, [r.value for r in readings])
    return Trajectory(citations, answer, _REASONING[need.op])


_REASONING = {"lookup": "", "difference": "The answer is the first value minus the second.",
              "total": "The answer is the sum of the cited values.",
              "highest": "The answer is the division with the largest cited value."}  # fmt: skip


def oracle_fact_trajectory(question: str, q: dict, sizes: dict, page_label=str) -> Trajectory:
    """The oracle-fact variant: the gold facts (and their pages and boxes) are given; the reader only computes."""
    need = understand(question)
    if need is None or not q["evidence"]:
        return Trajectory([], UNANSWERABLE)
    values = {ev["division"]: ev["value"] for ev in q["evidence"]}
    citations = [Citation(ev["page"], page_label(ev["page"]), _norm_box(ev["bbox"], sizes[ev["page"]]),
                          ev["fact"].rstrip(".")) for ev in q["evidence"]]  # fmt: skip
    answer = answer_of(need.op, need.divisions, [values[d] for d in need.divisions])
    return Trajectory(citations, answer, _REASONING[need.op])

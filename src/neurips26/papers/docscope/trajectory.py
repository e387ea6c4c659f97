"""The trajectory format of DocScope (the official reasoning-with-citations output) and its parser.

A system's output for one question, as text (the official `reasoning_prompts.py` contract): prose in which every
fact-bearing sentence ends with exactly ONE structured citation, then the final answer:

    In 2019, the Coastal division reported revenue of 4,812 [page=12, doc_page="14", bbox=[0.091, 0.118, 0.887, 0.160]].
    In 2019, the Inland division reported revenue of 3,100 [page=30, doc_page="32", bbox=[0.091, 0.400, 0.700, 0.520]].
    The difference of the cited values gives the answer.
    <answer>1712</answer>                                          or <answer>Unanswerable</answer> / a bare "Unanswerable"

`page` is the 1-based global page, `doc_page` the printed label (context only), `bbox` normalised to [0, 1] with a
top-left origin. The predicted pages are the pages of the citations. The official fact judge reads, for a citation, only
the evidence unit immediately before it: the part of its sentence before the citation; a citation that stands alone as a
sentence ("... Table 18. [page=5, ...].") shares the previous sentence (consecutive citations share the unit before the
first). `parse` gives a `Trajectory` or raises `TrajectoryError` naming what is malformed (a near-citation that misses
the format, a box that is not normalised, a page outside the document, answer tags).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from neurips26.common.pipeline.errors import UserError

UNANSWERABLE = "Unanswerable"
_NUMBER = r"[-+]?\d*\.?\d+"
_CITATION = re.compile(
    r"\[\s*page\s*=\s*(?P<page>\d+)\s*,\s*doc_page\s*=\s*\"(?P<doc>[^\"]*)\"\s*,\s*bbox\s*=\s*\[\s*"
    rf"(?P<box>{_NUMBER}\s*,\s*{_NUMBER}\s*,\s*{_NUMBER}\s*,\s*{_NUMBER})\s*\]\s*\]",
    re.I,
)
_NEAR_CITATION = re.compile(r"\[\s*page\s*=", re.I)  # what starts a citation; one that does not parse is an error
_MARK = "\ue000"  # a masked citation (one character per original character: offsets stay aligned)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")  # not the dot of 6.0 or 4,812.5


class TrajectoryError(UserError):
    """A malformed trajectory (the message says where and what was expected)."""


@dataclass(frozen=True)
class Citation:
    page: int
    doc_page: str
    box: tuple[float, float, float, float]
    unit: str  # the evidence unit the official fact judge reads for this citation


@dataclass
class Trajectory:
    citations: list[Citation] = field(default_factory=list)
    answer: str = UNANSWERABLE
    reasoning: str = ""  # pure-reasoning prose after the cited sentences (no citation; never judged)

    @property
    def regions(self) -> list[tuple[int, str, tuple]]:
        return [(c.page, c.doc_page, c.box) for c in self.citations]

    @property
    def pages(self) -> list[int]:
        return sorted({c.page for c in self.citations})

    @property
    def unanswerable(self) -> bool:
        return self.answer.strip().lower() == UNANSWERABLE.lower()

    def units_on(self, page: int) -> list[str]:
        """The evidence units before the admissible citations of `page` (the official rule: page field equal)."""
        return [c.unit for c in self.citations if c.page == page]


def cite(page: int, doc_page: str, box) -> str:
    return f'[page={page}, doc_page="{doc_page}", bbox=[{", ".join(f"{v:.4f}" for v in box)}]]'


def render(t: Trajectory) -> str:
    """One sentence per citation (its unit, the citation, a period), the reasoning, then the answer tag."""
    sentences = [f"{c.unit.rstrip().rstrip('.')} {cite(c.page, c.doc_page, c.box)}." for c in t.citations]
    if t.reasoning:
        sentences.append(t.reasoning.strip())
    return " ".join(s.replace("\n", " ") for s in sentences) + f"\n<answer>{t.answer}</answer>\n"


def _answer(text: str) -> tuple[str, str]:
    """(answer, text without the answer)."""
    if text.count("<answer>") != text.count("</answer>"):
        raise TrajectoryError("unbalanced <answer> tags")
    answers = re.findall(r"<answer>(.*?)</answer>", text, flags=re.S)
    if len(answers) > 1:
        raise TrajectoryError(f"{len(answers)} <answer> blocks; expected exactly one")
    if answers:
        if not answers[0].strip():
            raise TrajectoryError("empty <answer></answer>")
        return answers[0].strip(), re.sub(r"<answer>.*?</answer>", "", text, flags=re.S)
    bare = re.compile(r"^\s*unanswerable\s*\.?\s*$", flags=re.I | re.M)
    if bare.search(text):
        return UNANSWERABLE, bare.sub("", text)
    raise TrajectoryError("no <answer>...</answer> and no 'Unanswerable' line")


def _box(raw: str, where: str) -> tuple[float, float, float, float]:
    box = tuple(float(v) for v in raw.split(","))
    if not all(0.0 <= v <= 1.0 for v in box) or box[2] <= box[0] or box[3] <= box[1]:
        raise TrajectoryError(f"{where}: bbox {box} must be normalised with 0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1")
    return box


def _sentences(masked: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(masked):
        spans.append((start, m.end()))
        start = m.end()
    if start < len(masked):
        spans.append((start, len(masked)))
    return spans


def _clean(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace(_MARK, " ")).strip()
    return re.sub(r"\s+([.!?,;:])", r"\1", text).rstrip(" .")


def _has_words(text: str) -> bool:
    return bool(re.search(r"[^\W_]", text.replace(_MARK, "")))


def parse(text: str, n_pages: int | None = None) -> Trajectory:
    if not isinstance(text, str) or not text.strip():
        raise TrajectoryError("empty trajectory: expected cited sentences and <answer>...</answer> or Unanswerable")
    answer, body = _answer(text)
    matches = list(_CITATION.finditer(body))
    masked = body
    for m in matches:
        masked = masked[: m.start()] + _MARK * (m.end() - m.start()) + masked[m.end() :]
    stray = _NEAR_CITATION.search(masked)
    if stray:
        raise TrajectoryError(
            f"{body[stray.start() : stray.start() + 60]!r} is not a citation "
            '[page=N, doc_page="..", bbox=[x1, y1, x2, y2]] (closed by two brackets)'
        )
    spans = _sentences(masked)
    citations = []
    for n, m in enumerate(matches, 1):
        page = int(m.group("page"))
        if page < 1 or (n_pages is not None and page > n_pages):
            raise TrajectoryError(f"citation {n}: page {page} outside 1..{n_pages or 'N'}")
        idx = next(i for i, (s, e) in enumerate(spans) if s <= m.start() < e)
        unit = masked[spans[idx][0] : m.start()]
        while not _has_words(unit) and idx > 0:  # a citation standing alone shares the sentence before it
            idx -= 1
            unit = masked[spans[idx][0] : spans[idx][1]]
        citations.append(Citation(page, m.group("doc"), _box(m.group("box"), f"citation {n}"), _clean(unit)))
    last_cited = max((e for s, e in spans if _MARK in masked[s:e]), default=0)
    return Trajectory(citations, answer, _clean(masked[last_cited:]))

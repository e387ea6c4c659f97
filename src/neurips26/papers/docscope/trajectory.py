"""The trajectory format of DocScope and its parser.

A system's output for one question, as text:

    [page=12, doc_page="14", bbox=[0.091, 0.118, 0.887, 0.160]]     one line per evidence region (page from 1,
    [page=30, doc_page="32", bbox=[0.091, 0.400, 0.700, 0.520]]     bbox normalised to [0, 1], top-left origin)
    <facts>
    In 2019, the Coastal division reported revenue of 4,812 thousand dollars.
    </facts>
    <answer>4812</answer>                                          or <answer>Unanswerable</answer> / a bare "Unanswerable"

Evidence lines and the answer are the official format; the <facts> block carries the relevant facts (one per line).
`parse` gives a `Trajectory` or raises `TrajectoryError` naming what is malformed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from neurips26.common.pipeline.errors import UserError

UNANSWERABLE = "Unanswerable"
_EVIDENCE = re.compile(
    r"^\[\s*page\s*=\s*(?P<page>[^,\]]+)\s*,\s*doc_page\s*=\s*\"(?P<doc>[^\"]*)\"\s*,\s*bbox\s*=\s*\[(?P<box>[^\]]*)\]\s*\]$"
)


class TrajectoryError(UserError):
    """A malformed trajectory (the message says which line and what was expected)."""


@dataclass
class Trajectory:
    regions: list[tuple[int, str, tuple[float, float, float, float]]] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    answer: str = UNANSWERABLE

    @property
    def pages(self) -> list[int]:
        return sorted({p for p, _, _ in self.regions})

    @property
    def unanswerable(self) -> bool:
        return self.answer.strip().lower() == UNANSWERABLE.lower()


def render(t: Trajectory) -> str:
    lines = [f'[page={p}, doc_page="{d}", bbox=[{", ".join(f"{v:.4f}" for v in b)}]]' for p, d, b in t.regions]
    lines += ["<facts>", *[f.replace("\n", " ") for f in t.facts], "</facts>", f"<answer>{t.answer}</answer>"]
    return "\n".join(lines) + "\n"


def parse(text: str, n_pages: int | None = None) -> Trajectory:
    if not isinstance(text, str) or not text.strip():
        raise TrajectoryError("empty trajectory: expected evidence lines and <answer>...</answer> or Unanswerable")
    answers = re.findall(r"<answer>(.*?)</answer>", text, flags=re.S)
    if text.count("<answer>") != text.count("</answer>"):
        raise TrajectoryError("unbalanced <answer> tags")
    if len(answers) > 1:
        raise TrajectoryError(f"{len(answers)} <answer> blocks; expected exactly one")
    body = re.sub(r"<answer>.*?</answer>", "", text, flags=re.S)
    if answers:
        answer = answers[0].strip()
        if not answer:
            raise TrajectoryError("empty <answer></answer>")
    elif re.search(r"^\s*unanswerable\s*\.?\s*$", body, flags=re.I | re.M):
        answer = UNANSWERABLE
        body = re.sub(r"^\s*unanswerable\s*\.?\s*$", "", body, flags=re.I | re.M)
    else:
        raise TrajectoryError("no <answer>...</answer> and no 'Unanswerable' line")
    if body.count("<facts>") != body.count("</facts>") or body.count("<facts>") > 1:
        raise TrajectoryError("expected at most one <facts> ... </facts> block")
    facts: list[str] = []
    m = re.search(r"<facts>(.*?)</facts>", body, flags=re.S)
    if m:
        facts = [ln.strip().lstrip("-* ").strip() for ln in m.group(1).splitlines() if ln.strip()]
        body = body[: m.start()] + body[m.end() :]
    regions = []
    for n, raw in enumerate(body.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        ev = _EVIDENCE.match(line)
        if not ev:
            raise TrajectoryError(
                f'line {n}: {line[:80]!r} is not an evidence line [page=N, doc_page="..", bbox=[x1,y1,x2,y2]]'
            )
        try:
            page = int(ev.group("page").strip())
        except ValueError:
            raise TrajectoryError(f"line {n}: page {ev.group('page')!r} is not an integer") from None
        if page < 1 or (n_pages is not None and page > n_pages):
            raise TrajectoryError(f"line {n}: page {page} outside 1..{n_pages or 'N'}")
        try:
            box = tuple(float(v) for v in ev.group("box").split(","))
        except ValueError:
            raise TrajectoryError(f"line {n}: bbox {ev.group('box')!r} is not four numbers") from None
        if len(box) != 4:
            raise TrajectoryError(f"line {n}: bbox has {len(box)} numbers, expected 4")
        if not all(0.0 <= v <= 1.0 for v in box) or box[2] <= box[0] or box[3] <= box[1]:
            raise TrajectoryError(f"line {n}: bbox {box} must be normalised with 0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1")
        regions.append((page, ev.group("doc"), box))
    return Trajectory(regions, facts, answer)

"""Pages as the systems see them (the PDF text layer: words, lines, paragraph blocks) and page retrieval (BM25, MiniLM)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.docbench.documents import page_count, page_size, page_words

STOP = set("a an the of in on at to for by and or was were did that which what how much many is are than exceed".split())


def tokens(text: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP]


@dataclass
class Page:
    number: int
    size: tuple[float, float]
    words: list[dict]
    lines: list[dict]  # {"text", "bbox", "words": [word indices]}
    blocks: list[dict]  # {"text", "bbox", "lines": [line indices]}

    @property
    def text(self) -> str:
        return "\n".join(b["text"] for b in self.blocks)


def _union(boxes):
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def build_page(number: int, size, words: list[dict], block_gap: float = 6.0) -> Page:
    lines: list[dict] = []
    for i, w in enumerate(words):
        if lines:
            cur = lines[-1]
            y0, y1 = cur["bbox"][1], cur["bbox"][3]
            overlap = min(y1, w["bbox"][3]) - max(y0, w["bbox"][1])
            smaller = min(y1 - y0, w["bbox"][3] - w["bbox"][1])
            if smaller > 0 and overlap > 0.5 * smaller and w["bbox"][0] >= cur["bbox"][0] - 1:
                cur["words"].append(i)
                cur["bbox"] = _union([cur["bbox"], w["bbox"]])
                cur["text"] += " " + w["text"]
                continue
        lines.append({"text": w["text"], "bbox": tuple(w["bbox"]), "words": [i]})
    blocks: list[dict] = []
    for j, ln in enumerate(lines):
        if blocks:
            prev = lines[blocks[-1]["lines"][-1]]
            gap = ln["bbox"][1] - prev["bbox"][3]
            if 0 <= gap <= block_gap and abs(ln["bbox"][0] - blocks[-1]["bbox"][0]) < 3:
                blocks[-1]["lines"].append(j)
                blocks[-1]["bbox"] = _union([blocks[-1]["bbox"], ln["bbox"]])
                blocks[-1]["text"] += " " + ln["text"]
                continue
        blocks.append({"text": ln["text"], "bbox": ln["bbox"], "lines": [j]})
    return Page(number, size, words, lines, blocks)


def read_document(path: str | Path, block_gap: float = 6.0) -> list[Page]:
    n = page_count(path)
    size = page_size(path)
    return [build_page(p, size, page_words(path, p), block_gap) for p in range(1, n + 1)]


class Retriever:
    """Ranks the pages of one document for a question. kind: bm25 (rank-bm25 Okapi over page tokens) or minilm (cosine of
    the question with every sentence/line of the page, page score = the best one)."""

    def __init__(self, kind: str, pages: list[Page], embedder=None):
        self.kind, self.pages = kind, pages
        if kind == "bm25":
            from rank_bm25 import BM25Okapi

            self.bm25 = BM25Okapi([tokens(p.text) or ["_"] for p in pages])
        elif kind == "minilm":
            if embedder is None:
                raise ValueError("minilm retrieval needs an embedder")
            self.embedder = embedder
            self.units = [(i, s) for i, p in enumerate(pages) for s in sentences(p)]
        else:
            raise ValueError(f"unknown retriever {kind!r}")

    def rank(self, question: str) -> list[int]:
        """Page numbers, best first."""
        if self.kind == "bm25":
            scores = np.asarray(self.bm25.get_scores(tokens(question)))
        else:
            q = self.embedder([question])[0]
            vecs = self.embedder([s for _, s in self.units])
            sims = vecs @ q
            scores = np.full(len(self.pages), -1.0)
            for (i, _), s in zip(self.units, sims):
                scores[i] = max(scores[i], s)
        order = sorted(range(len(self.pages)), key=lambda i: (-scores[i], i))
        return [self.pages[i].number for i in order]


def sentences(page: Page) -> list[str]:
    out = []
    for b in page.blocks:
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", b["text"]) if len(s.strip()) > 2]
    return out

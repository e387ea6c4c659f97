"""The documents: generated one-page reports (English, and Spanish made by Apertium from the English) built with the
shared PDF builder (common/docbench/documents.py), each with gold blocks in reading order (headings, paragraphs, a table with
its cells); and real pages of the Debian R manuals with their PDF text layer as gold."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from neurips26.common.docbench import documents
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docptbench.translate import translate

SUBJECTS = ["the committee", "the local council", "the research team", "the new school", "the small company",
            "the water service", "the city library", "the health centre", "the farmers", "the students",
            "the museum", "the regional office", "the transport agency", "the hospital", "the volunteers"]
VERBS = ["approved", "reviewed", "published", "changed", "improved", "reduced", "increased", "prepared", "supported",
         "described", "tested", "opened", "studied", "planned", "finished"]
OBJECTS = ["the annual budget", "a new plan", "the final report", "the public service", "the main building",
           "the water supply", "the price of energy", "the number of visitors", "the quality of the roads",
           "a short program", "the old system", "the weekly market", "the safety rules", "the training course",
           "the digital archive"]
TAILS = ["after a long discussion", "in the last year", "with the help of the citizens", "before the winter",
         "because the costs were high", "for the first time", "in the northern district", "without any delay",
         "during the summer", "at the end of the month", "with great care", "in the new building"]
EXTRAS = ["Many people were happy with the result.", "The work will continue next year.",
          "Some problems remain open.", "The data show a clear change.", "Nobody expected such a large effect.",
          "The new method is simple and cheap.", "Several experts gave their opinion.",
          "The next meeting will take place in the town hall.", "The results are available to everybody.",
          "Small changes can have large effects."]
TITLES = ["Annual report of the water service", "Notes on the public library", "Report on the local transport",
          "Results of the school program", "Review of the health centre", "Plan for the city market"]
SECTIONS = ["Introduction", "Main results", "Costs and prices", "Public opinion", "Next steps", "Conclusions"]
ROW_LABELS = ["North", "South", "East", "West", "Centre", "Coast"]
COLUMNS = ["Area", "Year", "Cost", "Users", "Share"]


@dataclass
class GoldBlock:
    kind: str                          # heading | text | table
    text: str
    rows: list[list[str]] = field(default_factory=list)


@dataclass
class Page:
    """One page of the benchmark: its grey render, gold blocks in reading order (generated pages) or the text layer
    (real pages: one text block, no order, no table), language and source."""

    page_id: str
    language: str                      # en | es
    source: str                        # generated | r_manual
    image: np.ndarray
    blocks: list[GoldBlock]

    @property
    def structured(self) -> bool:
        return self.source == "generated"


def _sentence(rng: np.random.Generator) -> str:
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    s = f"{pick(SUBJECTS)} {pick(VERBS)} {pick(OBJECTS)} {pick(TAILS)}."
    return s[0].upper() + s[1:]


def _paragraph(rng: np.random.Generator, sentences: int) -> str:
    parts = [_sentence(rng) if rng.random() < 0.75 else EXTRAS[int(rng.integers(len(EXTRAS)))]
             for _ in range(sentences)]
    return " ".join(parts)


def english_blocks(rng: np.random.Generator, sections: int, sentences: int, table_rows: int) -> list[GoldBlock]:
    """Title, `sections` x (heading + paragraph), a table after the first section."""
    blocks = [GoldBlock("heading", TITLES[int(rng.integers(len(TITLES)))])]
    names = rng.choice(SECTIONS, size=sections, replace=False)
    for k, name in enumerate(names):
        blocks.append(GoldBlock("heading", f"{k + 1}. {name}"))
        blocks.append(GoldBlock("text", _paragraph(rng, sentences)))
        if k == 0:
            labels = rng.choice(ROW_LABELS, size=table_rows, replace=False)
            rows = [COLUMNS[:4]] + [[str(lab), str(int(rng.integers(2015, 2025))), str(int(rng.integers(100, 9999))),
                                     str(int(rng.integers(10, 999)))] for lab in labels]
            blocks.append(GoldBlock("table", "", rows))
    return blocks


def to_spanish(blocks: list[GoldBlock]) -> list[GoldBlock]:
    """The same document in Spanish: every text and table cell label through apertium eng-spa (numbers unchanged)."""
    texts = [b.text for b in blocks if b.kind != "table"]
    labels = sorted({c for b in blocks if b.kind == "table" for row in b.rows for c in row if not c.isdigit()})
    out = translate(texts + labels, "eng-spa")
    it, cell = iter(out[:len(texts)]), dict(zip(labels, out[len(texts):]))
    return [GoldBlock(b.kind, "", [[cell.get(c, c) for c in row] for row in b.rows]) if b.kind == "table"
            else GoldBlock(b.kind, next(it)) for b in blocks]


def build_pdf(blocks: list[GoldBlock], path: Path) -> None:
    builder = documents.PdfBuilder(footer=False, margin=60.0)
    for b in blocks:
        if b.kind == "heading":
            builder.add_heading(b.text, level=1 if b is blocks[0] else 2)
        elif b.kind == "text":
            builder.add_paragraph(b.text)
        else:
            builder.add_table(b.rows, col_widths=[110.0, 70.0, 70.0, 70.0])
    if builder.page != 1:
        raise ValueError("a generated document must fit on one page: lower sections or sentences in the config")
    builder.save(path)


def _grey(rgb: np.ndarray) -> np.ndarray:
    return (rgb.astype(np.float32) @ np.float32([0.299, 0.587, 0.114])).round().astype(np.uint8)


def generated_pages(language: str, count: int, seed: int, cfg, workdir: Path) -> list[Page]:
    rng = np.random.default_rng([seed, 0 if language == "en" else 1])
    english = [english_blocks(rng, int(cfg.sections), int(cfg.sentences), int(cfg.table_rows)) for _ in range(count)]
    pages = []
    for k, blocks in enumerate(english):
        if language == "es":
            blocks = to_spanish(blocks)
        pdf = workdir / f"{language}_{seed}_{k}.pdf"
        build_pdf(blocks, pdf)
        pages.append(Page(f"{language}-s{seed}-p{k}", language, "generated",
                          _grey(documents.render_page(pdf, 1, dpi=float(cfg.dpi))), blocks))
    return pages


def r_manual_pages(count: int, seed: int, cfg, directory: Path | None = None) -> list[Page]:
    """`count` distinct pages drawn (by seed) from the R manuals' body pages with `min_words` to `max_words` words of
    text layer (a page drawn twice is skipped: each page is one unit of the claims' page bootstrap)."""
    rng = np.random.default_rng([seed, 2])
    manuals = [m for m in documents.r_manuals(directory) if m.stem in set(cfg.manuals)]
    if not manuals:
        raise UserError(f"none of the R manuals {list(cfg.manuals)} found (directory {directory or 'the Debian default'})")
    pages = []
    while len(pages) < count:
        manual = manuals[int(rng.integers(len(manuals)))]
        n = documents.page_count(manual)
        number = int(rng.integers(5, n - 2))
        if any(p.page_id == f"{manual.stem}-p{number}" for p in pages):
            continue
        lines = documents.page_lines(manual, number)
        text = " ".join(line["text"] for line in lines)
        if len(text.split()) < int(cfg.min_words) or len(text.split()) > int(cfg.max_words):
            continue
        pages.append(Page(f"{manual.stem}-p{number}", "en", "r_manual",
                          _grey(documents.render_page(manual, number, dpi=float(cfg.dpi))), [GoldBlock("text", text)]))
    return pages

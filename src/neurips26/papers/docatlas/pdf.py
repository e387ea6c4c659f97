"""Render a generated report as a PDF with the shared `common.documents.PdfBuilder` (one PDF page per page of the
document, every block's box recorded) and read each block back from the PDF text layer (`common.documents.page_words`,
the words whose centre lies inside the block's recorded box). The harness then works on the text the PDF gives back."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from neurips26.papers.docatlas.world import Document


def render(doc: Document, path: Path) -> dict:
    """Write the PDF to `path`; block id -> its Element (page from 1, bbox in points with a top-left origin)."""
    from neurips26.common.documents import PdfBuilder

    builder = PdfBuilder(title=f"report {doc.id}")
    pages = sorted({b.page for b in doc.blocks})
    for pi, page in enumerate(pages):
        if pi:
            builder.new_page()
        blocks = [b for b in doc.blocks if b.page == page]
        builder.add_heading(blocks[0].section_title, level=2)
        for b in blocks:
            builder.add_paragraph(b.text, element_id=b.id)
    elements = {e.element_id: e for e in builder.save(path) if e.kind == "paragraph"}
    moved = [b.id for b in doc.blocks if elements[b.id].page != pages.index(b.page) + 1]
    if moved:
        raise RuntimeError(f"{doc.id}: blocks {moved[:3]} did not land on their page")
    return elements


def read_blocks(path: Path, elements: dict) -> dict[str, str]:
    """block id -> the text layer's words inside the block's box, in reading order."""
    from neurips26.common.documents import page_words

    out, words = {}, {}
    for block, e in elements.items():
        if e.page not in words:
            words[e.page] = page_words(path, e.page)
        x0, y0, x1, y1 = e.bbox
        inside = [w["text"] for w in words[e.page]
                  if x0 - 1 <= (w["bbox"][0] + w["bbox"][2]) / 2 <= x1 + 1
                  and y0 - 1 <= (w["bbox"][1] + w["bbox"][3]) / 2 <= y1 + 1]
        out[block] = " ".join(inside)
    return out


def roundtrip(doc: Document) -> Document:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{doc.id}.pdf"
        texts = read_blocks(path, render(doc, path))
    return Document(doc.id, [replace(b, text=texts[b.id]) for b in doc.blocks])

"""Render a generated report as a PDF (reportlab, one page per page of the document, each block's box recorded) and
read every block back from the PDF text layer (pypdfium2, the text inside the recorded box). The harness then works on
the text the PDF gives back, not on the generator's strings."""

from __future__ import annotations

import io
from dataclasses import replace

from neurips26.papers.docatlas.world import Document

PAGE_W, PAGE_H, MARGIN, SIZE, LEADING = 612.0, 792.0, 72.0, 10.0, 13.0


def render(doc: Document) -> tuple[bytes, dict[str, tuple[int, tuple[float, float, float, float]]]]:
    """The PDF bytes and block id -> (0-based page index, box (left, bottom, right, top) in PDF points)."""
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(PAGE_W, PAGE_H), invariant=1)  # invariant: same bytes for the same document
    boxes: dict = {}
    pages = sorted({b.page for b in doc.blocks})
    for pi, page in enumerate(pages):
        blocks = [b for b in doc.blocks if b.page == page]
        y = PAGE_H - MARGIN
        c.setFont("Helvetica-Bold", 13)
        c.drawString(MARGIN, y, blocks[0].section_title)
        y -= 2 * LEADING
        for b in blocks:
            lines = simpleSplit(b.text, "Helvetica", SIZE, PAGE_W - 2 * MARGIN)
            top = y + SIZE
            c.setFont("Helvetica", SIZE)
            for line in lines:
                c.drawString(MARGIN, y, line)
                y -= LEADING
            boxes[b.id] = (pi, (MARGIN - 2, y + LEADING - 4, PAGE_W - MARGIN + 2, top))
            y -= LEADING
        c.setFont("Helvetica", 8)
        c.drawString(PAGE_W / 2, MARGIN / 2, str(page))
        c.showPage()
    c.save()
    return buf.getvalue(), boxes


def read_blocks(pdf: bytes, boxes: dict) -> dict[str, str]:
    """block id -> the whitespace-normalised text of the PDF's text layer inside its box."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    out = {}
    try:
        for block, (pi, (left, bottom, right, top)) in boxes.items():
            textpage = document[pi].get_textpage()
            out[block] = " ".join(textpage.get_text_bounded(left, bottom, right, top).split())
    finally:
        document.close()
    return out


def roundtrip(doc: Document) -> Document:
    pdf, boxes = render(doc)
    texts = read_blocks(pdf, boxes)
    return Document(doc.id, [replace(b, text=texts[b.id]) for b in doc.blocks])

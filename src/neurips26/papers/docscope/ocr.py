"""Pages as a pixel reader sees them: the page is rendered to an image and Tesseract (Debian tesseract-ocr, through
pytesseract) finds the words, their boxes, lines and paragraphs from the pixels alone. The result is a `Page` like the
text-layer one (index.py), so the same reader can run on it; the boxes it cites are then *predicted* from the image, not
read from the PDF, which is the setting of the paper's region-grounding findings (MLLMs localise evidence from pixels).

Tesseract runs single-threaded (OMP_THREAD_LIMIT=1): its OpenMP threads fight the job's single core (pilot: 8.4 s a page
with the default threads vs 1.5 s with one, at 100 dpi, on the shared 2-core machine). The limit is set only while
Tesseract runs: left in the process environment it reaches every later child process, and torch with more than one
thread under OMP_THREAD_LIMIT=1 stalls (a hyperidac job that takes seconds ran past 15 minutes in CI)."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from neurips26.common.docbench.documents import page_size, render_page
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docscope.index import Page, _union


@contextmanager
def _single_threaded_tesseract():
    """OMP_THREAD_LIMIT=1 for the Tesseract child process pytesseract starts (it passes no env of its own), restored
    after: the process's other children never see it."""
    before = os.environ.get("OMP_THREAD_LIMIT")
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("OMP_THREAD_LIMIT", None)
        else:
            os.environ["OMP_THREAD_LIMIT"] = before


def tesseract_words(image, dpi: float) -> list[dict]:
    """Tesseract's words on an RGB image: [{"text", "bbox" (points, top-left origin), "key": (block, par, line)}]."""
    try:
        import pytesseract
        from PIL import Image
    except ImportError:
        raise UserError("docscope OCR needs pytesseract (pip) and Pillow") from None
    try:
        with _single_threaded_tesseract():
            data = pytesseract.image_to_data(
                Image.fromarray(image).convert("L"), output_type=pytesseract.Output.DICT, config="--psm 3"
            )
    except pytesseract.TesseractNotFoundError:
        raise UserError("docscope OCR needs the tesseract binary (Debian package tesseract-ocr)") from None
    s = 72.0 / dpi
    words = []
    for i, text in enumerate(data["text"]):
        text = text.strip()
        if not text or int(data["level"][i]) != 5:
            continue
        x, y, w, h = (float(data[k][i]) for k in ("left", "top", "width", "height"))
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        words.append({"text": text, "bbox": (x * s, y * s, (x + w) * s, (y + h) * s), "key": key})
    return words


def page_from_words(number: int, size, words: list[dict]) -> Page:
    """A `Page` whose lines are Tesseract's lines and whose blocks are Tesseract's paragraphs (block, par)."""
    lines: list[dict] = []
    line_of: dict = {}
    for i, w in enumerate(words):
        k = w["key"]
        if k not in line_of:
            line_of[k] = len(lines)
            lines.append({"text": w["text"], "bbox": tuple(w["bbox"]), "words": [i], "key": k})
        else:
            ln = lines[line_of[k]]
            ln["words"].append(i)
            ln["bbox"] = _union([ln["bbox"], w["bbox"]])
            ln["text"] += " " + w["text"]
    blocks: list[dict] = []
    block_of: dict = {}
    for j, ln in enumerate(lines):
        k = ln["key"][:2]
        if k not in block_of:
            block_of[k] = len(blocks)
            blocks.append({"text": ln["text"], "bbox": ln["bbox"], "lines": [j]})
        else:
            b = blocks[block_of[k]]
            b["lines"].append(j)
            b["bbox"] = _union([b["bbox"], ln["bbox"]])
            b["text"] += " " + ln["text"]
    plain = [{"text": w["text"], "bbox": w["bbox"]} for w in words]
    return Page(number, tuple(size), plain, lines, blocks)


class OcrDocument:
    """OCR of a document's pages on demand, each page once per job (a question's candidate pages repeat)."""

    def __init__(self, path: str | Path, dpi: float):
        self.path, self.dpi = Path(path), float(dpi)
        self.size = page_size(self.path)
        self.pages: dict[int, Page] = {}

    def page(self, number: int) -> Page:
        if number not in self.pages:
            image = render_page(self.path, number, self.dpi)
            self.pages[number] = page_from_words(number, self.size, tesseract_words(image, self.dpi))
        return self.pages[number]

    def candidates(self, numbers: list[int]) -> list[Page]:
        return [self.page(n) for n in numbers]

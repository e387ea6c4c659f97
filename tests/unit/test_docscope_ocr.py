"""docscope: the pixel reader (Tesseract on the rendered page) against the boxes the PDF generator recorded: OCR line boxes
match the recorded line boxes, a cited OCR paragraph covers its element by the official 90% rule, and the reader on the
OCR page reads the right value and cites a box predicted from pixels (not the text layer's)."""

import os
import shutil

import pytest

from neurips26.common.docbench import documents as D
from neurips26.papers.docscope import ocr as O
from neurips26.papers.docscope import reader as R
from neurips26.papers.docscope import scorers as S

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="needs the Debian tesseract-ocr binary")

FACT = "Coastal division revenue in 2019: 4,812 thousand dollars, as stated in the annual accounts."
OTHER = "In 2018, the Inland division reported revenue of 1,200 thousand dollars. Staff were trained in the new rules."


def _iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    path = tmp_path_factory.mktemp("ocr") / "p.pdf"
    b = D.PdfBuilder()
    b.add_paragraph(FACT)
    b.add_space(120)
    b.add_paragraph(OTHER)
    elements = b.save(path)
    return path, elements, O.OcrDocument(path, 100).page(1)


def test_ocr_lines_match_recorded_boxes(generated):
    _, elements, page = generated
    recorded = [ln["bbox"] for e in elements for ln in e.lines]
    assert len(recorded) >= 2
    for box in recorded:  # every recorded line is found by OCR, at the same place (boxes from pixels, in points)
        best = max(_iou(box, ln["bbox"]) for ln in page.lines)
        assert best > 0.6, (box, best)


def test_ocr_paragraphs_cover_their_elements(generated):
    # the OCR paragraphs that overlap an element cover it by the official 90% rule and reach no further than a few
    # points past it (Tesseract may split one printed line into several paragraphs: that is the prediction's error)
    _, elements, page = generated
    for e in elements:
        near = [b["bbox"] for b in page.blocks if _iou(e.bbox, b["bbox"]) > 0]
        assert near and S.box_label(e.bbox, near) == "covered"
        assert all(b[0] > e.bbox[0] - 3 and b[2] < e.bbox[2] + 3 and b[1] > e.bbox[1] - 3 and b[3] < e.bbox[3] + 3
                   for b in near)  # fmt: skip
        assert all(tuple(b) != tuple(e.bbox) for b in near)  # predicted from pixels, not read from the PDF


def test_reader_on_the_ocr_page(generated):
    _, elements, page = generated
    t = R.answer_trajectory("What was the revenue of the Coastal division in 2019?", [page], [1], "paragraph", 60.0, 2.0)
    assert t.answer == "4812"
    ((pg, _, box),) = t.regions
    cited = D.denormalize_box(box, page.size)
    assert pg == 1 and S.box_label(elements[0].bbox, [cited]) == "covered"
    assert S.box_label(elements[1].bbox, [cited]) == "not_covered"
    t = R.answer_trajectory("What was the revenue of the Coastal division in 2019?", [page], [1], "line", 60.0, 2.0)
    ((pg, _, box),) = t.regions
    line = D.denormalize_box(box, page.size)
    assert max(_iou(line, ln["bbox"]) for ln in elements[0].lines) > 0.6


def test_page_from_words_groups_by_tesseract_keys():
    words = [
        {"text": "a", "bbox": (10, 10, 20, 20), "key": (1, 1, 1)},
        {"text": "b", "bbox": (25, 10, 35, 20), "key": (1, 1, 1)},
        {"text": "c", "bbox": (10, 24, 30, 34), "key": (1, 1, 2)},
        {"text": "d", "bbox": (10, 60, 30, 70), "key": (2, 1, 1)},
    ]
    page = O.page_from_words(1, (612.0, 792.0), words)
    assert [ln["text"] for ln in page.lines] == ["a b", "c", "d"]
    assert page.lines[0]["bbox"] == (10, 10, 35, 20)
    assert [b["lines"] for b in page.blocks] == [[0, 1], [2]]
    assert page.blocks[0]["bbox"] == (10, 10, 35, 34)


def test_the_thread_limit_is_tesseracts_alone(generated, monkeypatch):
    """OMP_THREAD_LIMIT=1 holds while Tesseract runs, and leaves no trace in the process environment: every later
    child would inherit it, and torch with two threads under it stalls."""
    path, _, _ = generated
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    O.OcrDocument(path, 100).page(1)
    assert "OMP_THREAD_LIMIT" not in os.environ
    monkeypatch.setenv("OMP_THREAD_LIMIT", "3")  # a limit the user set stays theirs
    O.OcrDocument(path, 100).page(1)
    assert os.environ["OMP_THREAD_LIMIT"] == "3"

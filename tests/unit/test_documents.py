"""common/docbench/documents.py: element boxes match the PDF as rendered and read back; readers give clear errors."""

import numpy as np
import pytest

from neurips26.common.docbench import documents as D
from neurips26.common.pipeline.errors import UserError


def _inside(inner, outer, tol=2.0):
    return (
        inner[0] >= outer[0] - tol
        and inner[1] >= outer[1] - tol
        and inner[2] <= outer[2] + tol
        and inner[3] <= outer[3] + tol
    )


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    path = tmp_path_factory.mktemp("docs") / "sample.pdf"
    b = D.PdfBuilder(title="sample", page_label_offset=4)
    b.add_heading("Harbor Authority Annual Review", element_id="h1")
    b.add_paragraph("Quarterly throughput at the northern terminal reached 4812 containers. " * 4, element_id="p1")
    b.add_table([["Year", "Revenue", "Cost"], ["2019", "1234", "999"], ["2020", "1500", "1100"]], element_id="t1")
    b.add_chart(["North", "South", "East"], [3, 5, 2.5], title="Shipments by region", element_id="c1")
    b.add_space(400)  # forces the next element onto page 2
    b.add_paragraph("Zanzibar appendix closing remark.", element_id="p2")
    b.add_figure(np.full((20, 40, 3), 200, dtype=np.uint8), 120, element_id="f1", caption="Figure 1: a grey block")
    elements = {e.element_id: e for e in b.save(path)}
    return path, elements


def test_pages_and_kinds(doc):
    path, els = doc
    assert D.page_count(path) == 2
    assert D.page_size(path) == (612.0, 792.0)
    assert [els[k].page for k in ["h1", "p1", "t1", "c1", "p2", "f1"]] == [1, 1, 1, 1, 2, 2]
    assert {e.kind for e in els.values()} == {"heading", "paragraph", "table", "chart", "figure", "caption"}
    # round trip of the JSON form
    for e in els.values():
        assert D.Element.from_dict(e.to_dict()).bbox == pytest.approx(e.bbox, abs=1e-3)


def test_text_boxes_match_text_layer(doc):
    """Every recorded line box matches the text layer's line of the same text within 2 points."""
    path, els = doc
    for page in (1, 2):
        layer = D.page_lines(path, page)
        for e in [e for e in els.values() if e.page == page and e.kind in ("heading", "paragraph", "caption")]:
            for line in e.lines:
                match = [ln for ln in layer if ln["text"].strip() == line["text"].strip()]
                assert match, f"{e.element_id}: line {line['text']!r} not found in the text layer"
                assert any(np.allclose(m["bbox"], line["bbox"], atol=2.5) for m in match), (line, match)
    # table cells and chart labels: the words lie inside the recorded element box
    words = D.page_words(path, 1)
    for word in ("Revenue", "1500", "North", "Shipments"):
        hits = [w for w in words if w["text"] == word]
        assert hits, word
        owner = els["t1"] if word in ("Revenue", "1500") else els["c1"]
        assert all(_inside(h["bbox"], owner.bbox) for h in hits)
    assert any(w["text"] == "5" for w in words)  # the page label (1 + offset 4) is drawn in the footer


def test_render_ink_inside_boxes(doc):
    """Rendered at 144 dpi, the dark pixels of page 1 inside the content area lie inside the union of element boxes."""
    path, els = doc
    img = D.render_page(path, 1, dpi=144)
    assert img.shape == (1584, 1224, 3) and img.dtype == np.uint8
    dark = img.mean(axis=2) < 160
    mask = np.zeros_like(dark)
    for e in els.values():
        if e.page == 1:
            x0, y0, x1, y1 = (int(round(v)) for v in D.box_to_pixels(e.bbox, 144))
            mask[max(y0 - 4, 0) : y1 + 4, max(x0 - 4, 0) : x1 + 4] = True
    content = dark[: int(792 * 2 - 56 * 2)]  # above the footer
    assert content.sum() > 1000
    assert (content & ~mask[: content.shape[0]]).sum() == 0
    # and every text element has ink
    for e in els.values():
        if e.page == 1:
            x0, y0, x1, y1 = (int(round(v)) for v in D.box_to_pixels(e.bbox, 144))
            assert dark[y0:y1, x0:x1].any(), e.element_id


def test_box_helpers():
    assert D.box_coverage((0, 0, 10, 10), [(0, 0, 5, 10), (5, 0, 10, 5)]) == pytest.approx(0.75)
    assert D.box_coverage((0, 0, 10, 10), [(0, 0, 6, 10), (4, 0, 10, 10)]) == pytest.approx(1.0)
    assert D.box_coverage((0, 0, 10, 10), []) == 0.0
    b = (61.2, 79.2, 306.0, 396.0)
    assert D.normalize_box(b, (612, 792)) == pytest.approx((0.1, 0.1, 0.5, 0.5))
    assert D.denormalize_box(D.normalize_box(b, (612, 792), 1000), (612, 792), 1000) == pytest.approx(b)


def test_deterministic_bytes(tmp_path):
    def make(p):
        b = D.PdfBuilder()
        b.add_paragraph("same text")
        b.save(p)
        return p.read_bytes()

    assert make(tmp_path / "a.pdf") == make(tmp_path / "b.pdf")


def test_clear_errors(tmp_path):
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4 truncated")
    with pytest.raises(UserError, match="bad.pdf"):
        D.page_count(bad)
    with pytest.raises(UserError, match="not found"):
        D.render_page(tmp_path / "missing.pdf", 1)
    with pytest.raises(UserError, match="r-doc-pdf"):
        D.r_manuals(tmp_path / "empty")
    with pytest.raises(ValueError):
        D.PdfBuilder().add_chart(["a"], [1, 2])


def test_r_manuals_when_installed():
    try:
        manuals = D.r_manuals()
    except UserError:
        pytest.skip("r-doc-pdf not installed")
    assert all(p.suffix == ".pdf" for p in manuals)
    assert max(D.page_count(p) for p in manuals) >= 100

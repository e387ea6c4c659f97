"""docptbench camera simulator, unwarping, layout and the system-tool checks."""

import cv2
import numpy as np
import pytest

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docptbench import camera, layout, parsers, translate, unwarp
from neurips26.papers.docptbench.parsers import Segment


def _page(h=300, w=240):
    """A synthetic page: white with dark text-like bars and a frame of marks near the border."""
    page = np.full((h, w), 255, np.uint8)
    rng = np.random.default_rng(0)
    for y in range(20, h - 20, 14):
        x = 20
        while x < w - 40:
            length = int(rng.integers(8, 30))
            page[y:y + 7, x:x + length] = 30
            x += length + 6
    return page


def _geometric_only(params):
    return {**params, "curl": 0.0, "fold_shading": 0.0, "light_gradient": 0.0, "shadow": 0.0, "blur_sigma": 0.0,
            "noise_sigma": 0.0, "jpeg_quality": 100}


def test_every_parameter_is_recorded_and_replays():
    page = _page()
    params = camera.draw_params(2, page.shape, np.random.default_rng(3), 1.25)
    for key in ("corners", "curl", "fold_shading", "light_gradient", "shadow", "blur_sigma", "noise_sigma",
                "jpeg_quality", "noise_seed", "background"):
        assert key in params
    assert np.array_equal(camera.photograph(page, params), camera.photograph(page, params))


def test_homography_maps_page_corners_to_recorded_corners():
    page = _page()
    params = camera.draw_params(3, page.shape, np.random.default_rng(1), 1.25)
    H = camera.homography(params)
    h, w = page.shape
    mapped = cv2.perspectiveTransform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), H)[0]
    assert np.allclose(mapped, params["corners"], atol=1e-3)


@pytest.mark.parametrize("severity", [1, 3])
def test_oracle_unwarp_inverts_the_homography(severity):
    page = _page()
    params = _geometric_only(camera.draw_params(severity, page.shape, np.random.default_rng(severity), 1.25))
    photo = camera.photograph(page, params)
    restored = unwarp.oracle_unwarp(photo, params).astype(float)
    inner = (slice(10, -10), slice(10, -10))  # resampling at the sheet's border mixes in the background
    error = np.abs(restored[inner] - page[inner]).mean()
    assert error < 12.0, error                      # resampling blur only
    other = _geometric_only(camera.draw_params(severity, page.shape, np.random.default_rng(severity + 10), 1.25))
    assert np.abs(unwarp.oracle_unwarp(photo, other).astype(float)[inner] - page[inner]).mean() > 40  # wrong H fails
    assert np.abs(photo.astype(float).mean() - page.mean()) > 20   # the photograph itself is far from the page


def test_quad_detection_finds_the_sheet():
    page = _page()
    params = camera.draw_params(2, page.shape, np.random.default_rng(5), 1.25)
    photo = camera.photograph(page, params)
    assert unwarp.corner_error(photo, params) < 6.0
    flat, found = unwarp.unwarp(photo, page.shape)
    assert found and flat.shape == page.shape


def test_severity_zero_is_the_identity():
    page = _page()
    params = camera.draw_params(0, page.shape, np.random.default_rng(0), 1.25)
    assert np.array_equal(camera.photograph(page, params), page)


def test_layout_builds_table_and_text_blocks():
    seg = lambda t, x, y, w=30, h=10: Segment(t, x, y, x + w, y + h)  # noqa: E731
    segments = [seg("Title", 10, 0, 60, 16),
                seg("some", 10, 30), seg("text", 44, 30), seg("here.", 78, 30),
                seg("A", 10, 60), seg("1", 100, 60), seg("B", 10, 75), seg("2", 100, 75),
                seg("after", 10, 110), seg("table.", 44, 110)]
    blocks = layout.layout(segments)
    assert [b.kind for b in blocks] == ["heading", "text", "table", "text"]
    assert blocks[2].rows == [["A", "1"], ["B", "2"]]
    assert layout.heading_like("2. Main results") and not layout.heading_like("the winter.")
    assert blocks[1].text == "some text here."


def test_missing_tesseract_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(UserError, match="tesseract-ocr"):
        parsers.tesseract_segments(_page())


def test_tesseract_reads_each_page_with_its_language_model(monkeypatch):
    seen = []
    monkeypatch.setattr(parsers, "require_tool", lambda name, package: "tesseract")
    monkeypatch.setattr(parsers, "tesseract_languages", lambda cmd: frozenset({"eng", "spa", "osd"}))

    def fake_data(image, lang, config, output_type):
        seen.append(lang)
        return {"text": ["hola"], "conf": [90], "left": [0], "top": [0], "width": [5], "height": [5]}

    import pytesseract

    monkeypatch.setattr(pytesseract, "image_to_data", fake_data)
    parsers.parse_segments("tesseract", _page(), "es")
    parsers.parse_segments("tesseract_bin", _page(), "en")
    assert seen == ["spa", "eng"]


def test_missing_tesseract_language_data_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(parsers, "require_tool", lambda name, package: "tesseract")
    monkeypatch.setattr(parsers, "tesseract_languages", lambda cmd: frozenset({"eng", "osd"}))
    with pytest.raises(UserError, match="tesseract-ocr-spa"):
        parsers.tesseract_lang("es")
    with pytest.raises(UserError, match="page language 'fr'"):
        parsers.tesseract_lang("fr")
    assert parsers.tesseract_lang("en") == "eng"


def test_missing_apertium_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(UserError, match="apertium"):
        translate.translate(["The house is big."], "eng-spa")


def test_unknown_pair_is_a_clear_error():
    with pytest.raises(UserError, match="pair"):
        translate.translate(["x"], "eng-fra")

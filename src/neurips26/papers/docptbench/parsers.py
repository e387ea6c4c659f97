"""Document parsers: Tesseract 5 (Debian, through pytesseract) and the bundled RapidOCR engine (PP-OCRv4 ONNX models
of rapidocr-onnxruntime), with or without binarisation. Both give text segments with boxes (Tesseract: words;
RapidOCR: text lines); one layout step (layout.py) turns segments into headings, paragraphs and tables."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from neurips26.common.pipeline.errors import UserError


@dataclass
class Segment:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def require_tool(name: str, package: str) -> str:
    """The path of a system tool, or a clear error naming the Debian package that provides it."""
    path = shutil.which(name)
    if path is None:
        raise UserError(f"docptbench needs `{name}` (Debian package {package}), which is not on PATH: install it with "
                        f"`apt-get install {package}` (config/debian-packages.txt lists it; .ci/run installs it)")
    return path


def binarise(image: np.ndarray) -> np.ndarray:
    """Local (adaptive Gaussian) thresholding: removes uneven light and shadow before OCR (block 31 px, offset 12)."""
    return cv2.adaptiveThreshold(image, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 12)


# Tesseract's language model per page language, and the Debian package that ships it
TESSERACT_LANG = {"en": ("eng", "tesseract-ocr-eng"), "es": ("spa", "tesseract-ocr-spa")}


@cache
def tesseract_languages(cmd: str) -> frozenset[str]:
    out = subprocess.run([cmd, "--list-langs"], capture_output=True, text=True, check=False)
    return frozenset(line.strip() for line in (out.stdout + out.stderr).splitlines()[1:] if line.strip())


def tesseract_lang(language: str) -> str:
    """The Tesseract model of a page language, or a clear error naming the Debian package when it is not installed."""
    if language not in TESSERACT_LANG:
        raise UserError(f"no Tesseract model is configured for page language {language!r}; known: "
                        f"{', '.join(TESSERACT_LANG)}")
    lang, package = TESSERACT_LANG[language]
    if lang not in tesseract_languages(require_tool("tesseract", "tesseract-ocr")):
        raise UserError(f"Tesseract has no {lang!r} language data (Debian package {package}): install it with "
                        f"`apt-get install {package}` (config/debian-packages.txt lists it; .ci/run installs it)")
    return lang


def tesseract_segments(image: np.ndarray, language: str = "en", psm: int = 3) -> list[Segment]:
    """Tesseract's words with boxes, read with the page language's model (eng, spa)."""
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = require_tool("tesseract", "tesseract-ocr")
    data = pytesseract.image_to_data(image, lang=tesseract_lang(language), config=f"--psm {psm}",
                                     output_type=pytesseract.Output.DICT)
    out = []
    for text, conf, x, y, w, h in zip(data["text"], data["conf"], data["left"], data["top"], data["width"],
                                      data["height"]):
        if text.strip() and float(conf) >= 0:
            out.append(Segment(text.strip(), x, y, x + w, y + h))
    return out


_RAPID = {}


def rapidocr_segments(image: np.ndarray) -> list[Segment]:
    """RapidOCR (detection + recognition, no angle classifier: pages are upright) on one thread; the detector sees the
    image scaled to a longest side of at most 960 px (half the detection time, same parse on a pilot page)."""
    if "engine" not in _RAPID:
        from rapidocr_onnxruntime import RapidOCR

        _RAPID["engine"] = RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1, use_cls=False,
                                    det_limit_side_len=960, det_limit_type="max")
    result, _ = _RAPID["engine"](cv2.cvtColor(image, cv2.COLOR_GRAY2RGB), use_cls=False)
    out = []
    for box, text, _score in result or []:
        b = np.asarray(box, dtype=float)
        if text.strip():
            out.append(Segment(text.strip(), b[:, 0].min(), b[:, 1].min(), b[:, 0].max(), b[:, 1].max()))
    return out


# parser -> (image, page language) -> segments. RapidOCR's PP-OCRv4 recogniser has one Latin-script alphabet for both.
PARSERS = {
    "tesseract": lambda img, language: tesseract_segments(img, language),
    "tesseract_bin": lambda img, language: tesseract_segments(binarise(img), language),
    "rapidocr": lambda img, language: rapidocr_segments(img),
    "rapidocr_bin": lambda img, language: rapidocr_segments(binarise(img)),
}


def parse_segments(parser: str, image: np.ndarray, language: str = "en") -> list[Segment]:
    if parser not in PARSERS:
        raise UserError(f"unknown parser {parser!r}; known: {', '.join(PARSERS)}")
    return PARSERS[parser](image, language)

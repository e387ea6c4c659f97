"""PDF documents for the document papers (docscope, docptbench, docatlas): build, render, read.

What this module provides (a stable API: functions are added, never renamed or re-signed):

- `PdfBuilder`: lays out a PDF with reportlab, element by element (headings, paragraphs, tables, bar charts, raster
  figures), and records for every element its page and bounding box (`Element`). Paragraph elements also record one box per
  text line; tables record one box per cell. The same inputs give byte-identical PDFs (reportlab `invariant=1`).
- `render_page`: one page as an RGB `uint8` array (H, W, 3) with pypdfium2 at a given dpi.
- `page_words` / `page_lines`: the PDF text layer (words or lines with their boxes) read back with pypdfium2.
- `page_count`, `page_size`, `box_to_pixels`, `normalize_box`, `denormalize_box`, `box_coverage`.
- `r_manuals`: the Debian `r-doc-pdf` manuals (`/usr/share/R/doc/manual/*.pdf`): real long PDFs; clear error if absent.

Units and origin, everywhere in this module: boxes are `(x0, y0, x1, y1)` in PDF points (1/72 inch) with the origin at the
TOP-LEFT corner of the page, x growing right and y growing down (the image convention), so `x0 < x1` and `y0 < y1`.
Pages are numbered from 1. A box in pixels of a page rendered at `dpi` is the box times `dpi / 72` (`box_to_pixels`).
"""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.artifacts import atomic_path
from neurips26.common.pipeline.errors import UserError

R_MANUAL_DIRS = ("/usr/share/R/doc/manual", "/usr/share/doc/r-doc-pdf", "/usr/lib/R/doc/manual")

Box = tuple[float, float, float, float]


@dataclass
class Element:
    """One laid-out element. `bbox` in PDF points, top-left origin; `page` from 1.

    kind: "heading" | "paragraph" | "table" | "chart" | "figure" | "caption".
    lines: for text elements, one {"text", "bbox"} per drawn line; cells: for tables, one {"row", "col", "text", "bbox"};
    meta: kind-specific data (heading level, chart labels and values, table rows).
    """

    element_id: str
    kind: str
    page: int
    bbox: Box
    text: str
    lines: list[dict] = field(default_factory=list)
    cells: list[dict] = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["bbox"] = [round(float(v), 3) for v in self.bbox]
        for part in d["lines"] + d["cells"]:
            part["bbox"] = [round(float(v), 3) for v in part["bbox"]]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Element:
        try:
            return cls(
                element_id=str(d["element_id"]),
                kind=str(d["kind"]),
                page=int(d["page"]),
                bbox=tuple(float(v) for v in d["bbox"]),
                text=str(d["text"]),
                lines=[{**x, "bbox": tuple(x["bbox"])} for x in d.get("lines", [])],
                cells=[{**x, "bbox": tuple(x["bbox"])} for x in d.get("cells", [])],
                meta=dict(d.get("meta", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"malformed element record {str(d)[:120]!r}: {exc}") from exc


class PdfBuilder:
    """Immediate-mode layout on a reportlab canvas: each `add_*` places its element at the cursor (moving to a new page when
    it does not fit) and returns its `Element`. `save(path)` writes the PDF atomically and returns all elements.

    The cursor only moves down; `page` is the current page (from 1) and `remaining` the free height on it in points, so a
    generator can steer elements onto chosen pages. A footer with the printed page label (`page_label(page)`) is drawn on
    every page and is not an element.
    """

    def __init__(
        self,
        pagesize: tuple[float, float] = (612.0, 792.0),
        margin: float = 56.0,
        font: str = "Helvetica",
        bold_font: str = "Helvetica-Bold",
        body_size: float = 10.0,
        leading: float = 1.3,
        footer: bool = True,
        page_label_offset: int = 0,
        title: str = "",
    ):
        from reportlab.pdfgen.canvas import Canvas

        self.width, self.height = float(pagesize[0]), float(pagesize[1])
        self.margin = float(margin)
        self.font, self.bold_font = font, bold_font
        self.body_size, self.leading = float(body_size), float(leading)
        self.footer, self.page_label_offset = footer, int(page_label_offset)
        self._buffer = io.BytesIO()
        self._canvas = Canvas(self._buffer, pagesize=(self.width, self.height), invariant=1, pageCompression=0)
        if title:
            self._canvas.setTitle(title)
        self.page = 1
        self.y = self.margin  # top-left origin: distance of the cursor from the page top
        self.elements: list[Element] = []
        self._counter = 0
        self._saved = False

    # ---- layout state -------------------------------------------------------------------------------------------
    @property
    def remaining(self) -> float:
        return self.height - self.margin - self.y

    @property
    def text_width(self) -> float:
        return self.width - 2 * self.margin

    def page_label(self, page: int) -> str:
        """The printed page number of a PDF page (may differ from the PDF index, like a book's front matter)."""
        return str(page + self.page_label_offset)

    def _draw_footer(self) -> None:
        if self.footer:
            self._canvas.setFont(self.font, 8)
            self._canvas.setFillColorRGB(0.35, 0.35, 0.35)
            self._canvas.drawCentredString(self.width / 2, self.margin / 2, self.page_label(self.page))
            self._canvas.setFillColorRGB(0, 0, 0)

    def new_page(self) -> None:
        self._draw_footer()
        self._canvas.showPage()
        self.page += 1
        self.y = self.margin

    def _ensure(self, height: float) -> None:
        if height > self.height - 2 * self.margin:
            raise ValueError(f"element of height {height:.1f} pt does not fit on an empty page")
        if height > self.remaining:
            self.new_page()

    def _id(self, kind: str, element_id: str | None) -> str:
        self._counter += 1
        return element_id or f"{kind}{self._counter:04d}"

    def _baseline(self, top: float, size: float) -> float:
        """reportlab y (bottom-left origin) of the baseline of a line whose box starts `top` points below the page top."""
        return self.height - (top + size)

    def _text_lines(self, text: str, font: str, size: float, width: float) -> list[str]:
        from reportlab.lib.utils import simpleSplit

        return simpleSplit(text, font, size, width) or [""]

    def _line_box(self, x: float, top: float, line: str, font: str, size: float) -> Box:
        from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth

        ascent, descent = getAscentDescent(font, size)
        baseline_top = top + size  # distance of the baseline from the page top
        return (x, baseline_top - ascent, x + stringWidth(line, font, size), baseline_top - descent)

    def _draw_block(self, lines: list[str], font: str, size: float, x: float, gap: float) -> tuple[list[dict], Box]:
        line_h = size * self.leading
        self._canvas.setFont(font, size)
        records, top = [], self.y
        for i, line in enumerate(lines):
            line_top = top + i * line_h
            self._canvas.drawString(x, self._baseline(line_top, size), line)
            records.append({"text": line, "bbox": self._line_box(x, line_top, line, font, size)})
        x0 = min(r["bbox"][0] for r in records)
        x1 = max(r["bbox"][2] for r in records)
        box = (x0, records[0]["bbox"][1], x1, records[-1]["bbox"][3])
        self.y = top + len(lines) * line_h + gap
        return records, box

    # ---- elements -----------------------------------------------------------------------------------------------
    def add_heading(self, text: str, level: int = 1, element_id: str | None = None, meta: dict | None = None) -> Element:
        size = {1: 16.0, 2: 13.0}.get(level, 11.0)
        lines = self._text_lines(text, self.bold_font, size, self.text_width)
        self._ensure(len(lines) * size * self.leading + size)  # keep a heading with at least one body line
        self.y += 0.4 * size
        records, box = self._draw_block(lines, self.bold_font, size, self.margin, 0.3 * size)
        return self._record("heading", element_id, box, text, records, meta={"level": level, **(meta or {})})

    def add_paragraph(
        self, text: str, element_id: str | None = None, meta: dict | None = None, size: float | None = None
    ) -> Element:
        size = float(size or self.body_size)
        lines = self._text_lines(text, self.font, size, self.text_width)
        self._ensure(len(lines) * size * self.leading)
        records, box = self._draw_block(lines, self.font, size, self.margin, 0.6 * size)
        return self._record("paragraph", element_id, box, text, records, meta=meta)

    def add_table(
        self,
        rows: list[list[str]],
        header: bool = True,
        element_id: str | None = None,
        col_widths: list[float] | None = None,
        size: float | None = None,
        meta: dict | None = None,
    ) -> Element:
        """A ruled table; the first row is bold when `header`. Cells are single-line strings (clipped to the width)."""
        from reportlab.pdfbase.pdfmetrics import stringWidth

        if not rows or not rows[0]:
            raise ValueError("a table needs at least one row and one column")
        size = float(size or self.body_size - 1)
        ncol = len(rows[0])
        if any(len(r) != ncol for r in rows):
            raise ValueError("every table row needs the same number of cells")
        widths = col_widths or [self.text_width / ncol] * ncol
        row_h, pad = size * 1.8, 3.0
        height = row_h * len(rows)
        self._ensure(height)
        c, x_start, top = self._canvas, self.margin, self.y
        cells = []
        c.setLineWidth(0.5)
        for r, row in enumerate(rows):
            font = self.bold_font if header and r == 0 else self.font
            x = x_start
            row_top = top + r * row_h
            for col, cell in enumerate(row):
                cell = str(cell)
                while cell and stringWidth(cell, font, size) > widths[col] - 2 * pad:
                    cell = cell[:-1]
                c.setFont(font, size)
                text_top = row_top + (row_h - size) / 2
                c.drawString(x + pad, self._baseline(text_top, size), cell)
                cells.append(
                    {"row": r, "col": col, "text": cell, "bbox": self._line_box(x + pad, text_top, cell, font, size)}
                )
                x += widths[col]
        x_end = x_start + sum(widths)
        for r in range(len(rows) + 1):  # horizontal rules
            yy = self.height - (top + r * row_h)
            c.line(x_start, yy, x_end, yy)
        xx = x_start
        for w in [0.0, *widths]:  # vertical rules
            xx += w
            c.line(xx, self.height - top, xx, self.height - (top + height))
        box = (x_start, top, x_end, top + height)
        self.y = top + height + 0.8 * self.body_size
        text = "\n".join(" | ".join(str(v) for v in row) for row in rows)
        return self._record(
            "table", element_id, box, text, cells=cells, meta={"rows": [[str(v) for v in r] for r in rows], **(meta or {})}
        )

    def add_chart(
        self,
        labels: list[str],
        values: list[float],
        title: str = "",
        height: float = 170.0,
        element_id: str | None = None,
        meta: dict | None = None,
        show_values: bool = True,
    ) -> Element:
        """A vector bar chart (title, bars, category labels, optional value labels); its box covers all of it."""
        if len(labels) != len(values) or not labels:
            raise ValueError("a chart needs as many labels as values (at least one)")
        self._ensure(height)
        c, top = self._canvas, self.y
        x0, x1 = self.margin, self.margin + self.text_width * 0.75
        size = self.body_size - 1
        c.setFont(self.bold_font, size)
        c.drawString(x0, self._baseline(top, size), title)
        plot_top, plot_bottom = top + 2.2 * size, top + height - 2.0 * size
        vmax = max(max(values), 1e-9)
        slot = (x1 - x0) / len(values)
        c.setLineWidth(0.8)
        c.line(x0, self.height - plot_bottom, x1, self.height - plot_bottom)
        for i, (lab, val) in enumerate(zip(labels, values)):
            bar_h = (plot_bottom - plot_top - 1.4 * size) * max(val, 0.0) / vmax
            bx = x0 + i * slot + 0.15 * slot
            c.setFillColorRGB(0.25, 0.45, 0.7)
            c.rect(bx, self.height - plot_bottom, 0.7 * slot, bar_h, stroke=0, fill=1)
            c.setFillColorRGB(0, 0, 0)
            c.setFont(self.font, size - 1)
            c.drawCentredString(bx + 0.35 * slot, self.height - plot_bottom - 1.2 * size, str(lab))
            if show_values:
                c.drawCentredString(bx + 0.35 * slot, self.height - plot_bottom + bar_h + 0.3 * size, _fmt(val))
        box = (x0, top, x1, top + height)
        self.y = top + height + 0.8 * self.body_size
        text = title + "\n" + "\n".join(f"{lab}: {_fmt(v)}" for lab, v in zip(labels, values))
        return self._record(
            "chart",
            element_id,
            box,
            text,
            meta={"title": title, "labels": list(labels), "values": [float(v) for v in values], **(meta or {})},
        )

    def add_figure(
        self, rgb: np.ndarray, width: float, element_id: str | None = None, caption: str = "", meta: dict | None = None
    ) -> Element:
        """A raster figure (RGB uint8 array) `width` points wide, aspect kept; a caption becomes its own element."""
        from PIL import Image
        from reportlab.lib.utils import ImageReader

        rgb = np.asarray(rgb)
        if rgb.ndim != 3 or rgb.shape[2] != 3:
            raise ValueError(f"a figure needs an (H, W, 3) array, got shape {rgb.shape}")
        h = width * rgb.shape[0] / rgb.shape[1]
        self._ensure(h)
        top = self.y
        self._canvas.drawImage(
            ImageReader(Image.fromarray(rgb.astype(np.uint8))), self.margin, self.height - (top + h), width, h
        )
        box = (self.margin, top, self.margin + width, top + h)
        self.y = top + h + 0.5 * self.body_size
        fig = self._record("figure", element_id, box, caption, meta=meta)
        if caption:
            lines = self._text_lines(caption, self.font, self.body_size - 1, self.text_width)
            self._ensure(len(lines) * (self.body_size - 1) * self.leading)
            records, cbox = self._draw_block(lines, self.font, self.body_size - 1, self.margin, 0.6 * self.body_size)
            self._record("caption", f"{fig.element_id}_caption", cbox, caption, records, meta={"of": fig.element_id})
        return fig

    def add_space(self, points: float) -> None:
        self.y = min(self.y + points, self.height - self.margin)

    def _record(self, kind, element_id, box, text, lines=(), cells=(), meta=None) -> Element:
        el = Element(
            self._id(kind, element_id),
            kind,
            self.page,
            tuple(float(v) for v in box),
            text,
            list(lines),
            list(cells),
            dict(meta or {}),
        )
        self.elements.append(el)
        return el

    def to_bytes(self) -> bytes:
        if not self._saved:
            self._draw_footer()
            self._canvas.showPage()
            self._canvas.save()
            self._saved = True
        return self._buffer.getvalue()

    def save(self, path: str | Path) -> list[Element]:
        """Finish the document, write it atomically to `path`, and return every element laid out."""
        data = self.to_bytes()
        with atomic_path(path) as tmp:
            tmp.write_bytes(data)
        return list(self.elements)


def _fmt(v: float) -> str:
    return f"{v:g}" if float(v) != int(v) else str(int(v))


# ---- reading PDFs back ---------------------------------------------------------------------------------------------
def _open(path: str | Path):
    import pypdfium2 as pdfium

    path = Path(path)
    if not path.is_file():
        raise UserError(f"PDF not found: {path}")
    try:
        doc = pdfium.PdfDocument(str(path))
    except Exception as exc:  # pdfium raises PdfiumError on damaged or non-PDF files
        raise UserError(f"cannot open {path} as a PDF (damaged or not a PDF): {exc}") from exc
    if len(doc) == 0:
        doc.close()
        raise UserError(f"{path} has no pages (damaged or truncated PDF)")
    return doc


def _check_page(doc, path, page: int) -> None:
    if not 1 <= page <= len(doc):
        raise UserError(f"{path}: page {page} out of range 1..{len(doc)}")


def page_count(path: str | Path) -> int:
    doc = _open(path)
    try:
        return len(doc)
    finally:
        doc.close()


def page_size(path: str | Path, page: int = 1) -> tuple[float, float]:
    """(width, height) of a page in points."""
    doc = _open(path)
    try:
        _check_page(doc, path, page)
        return tuple(float(v) for v in doc[page - 1].get_size())
    finally:
        doc.close()


def render_page(path: str | Path, page: int, dpi: float = 144.0) -> np.ndarray:
    """Page `page` (from 1) rendered as an RGB uint8 array of shape (H, W, 3); H = height_pt * dpi / 72."""
    doc = _open(path)
    try:
        _check_page(doc, path, page)
        bitmap = doc[page - 1].render(scale=dpi / 72.0)
        return np.asarray(bitmap.to_pil().convert("RGB"), dtype=np.uint8).copy()
    finally:
        doc.close()


def page_words(path: str | Path, page: int) -> list[dict]:
    """The text layer of a page as words: [{"text", "bbox"}] in reading order, boxes in points with a top-left origin."""
    doc = _open(path)
    try:
        _check_page(doc, path, page)
        pdf_page = doc[page - 1]
        height = float(pdf_page.get_height())
        tp = pdf_page.get_textpage()
        words: list[dict] = []
        chars: list[str] = []
        boxes: list[tuple] = []

        def flush():
            if chars:
                words.append(
                    {
                        "text": "".join(chars),
                        "bbox": (
                            min(b[0] for b in boxes),
                            min(b[1] for b in boxes),
                            max(b[2] for b in boxes),
                            max(b[3] for b in boxes),
                        ),
                    }
                )
                chars.clear()
                boxes.clear()

        n = tp.count_chars()
        text = tp.get_text_range(0, n) if n else ""
        for i in range(n):
            ch = text[i] if i < len(text) else ""
            if not ch or ch.isspace():
                flush()
                continue
            left, bottom, right, top = tp.get_charbox(i)
            chars.append(ch)
            boxes.append((left, height - top, right, height - bottom))
        flush()
        return words
    finally:
        doc.close()


def page_lines(path: str | Path, page: int, tolerance: float = 0.5) -> list[dict]:
    """The text layer of a page as lines: [{"text", "bbox"}]; words are joined while their vertical extents overlap by more
    than `tolerance` of the smaller height (so table cells of one row form one line)."""
    lines: list[dict] = []
    for w in page_words(path, page):
        if lines:
            cur = lines[-1]
            y0, y1 = cur["bbox"][1], cur["bbox"][3]
            overlap = min(y1, w["bbox"][3]) - max(y0, w["bbox"][1])
            smaller = min(y1 - y0, w["bbox"][3] - w["bbox"][1])
            if smaller > 0 and overlap > tolerance * smaller and w["bbox"][0] >= cur["bbox"][0] - 1:
                cur["text"] += " " + w["text"]
                cur["bbox"] = _union(cur["bbox"], w["bbox"])
                continue
        lines.append({"text": w["text"], "bbox": tuple(w["bbox"])})
    return lines


# ---- box helpers -------------------------------------------------------------------------------------------------
def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def box_to_pixels(box: Box, dpi: float) -> Box:
    s = dpi / 72.0
    return tuple(float(v) * s for v in box)


def normalize_box(box: Box, size: tuple[float, float], scale: float = 1.0) -> Box:
    """Points -> fractions of the page (times `scale`, e.g. 1000 for the 0-1000 convention of several MLLMs)."""
    w, h = size
    return (box[0] / w * scale, box[1] / h * scale, box[2] / w * scale, box[3] / h * scale)


def denormalize_box(box: Box, size: tuple[float, float], scale: float = 1.0) -> Box:
    w, h = size
    return (box[0] * w / scale, box[1] * h / scale, box[2] * w / scale, box[3] * h / scale)


def box_coverage(target: Box, covers: list[Box], resolution: float = 1.0) -> float:
    """Fraction of the area of `target` covered by the UNION of `covers` (exact, by coordinate compression; `resolution`
    is unused and kept for signature stability). 0 for an empty target."""
    x0, y0, x1, y1 = target
    if x1 <= x0 or y1 <= y0:
        return 0.0
    clipped = [(max(x0, c[0]), max(y0, c[1]), min(x1, c[2]), min(y1, c[3])) for c in covers]
    clipped = [c for c in clipped if c[2] > c[0] and c[3] > c[1]]
    if not clipped:
        return 0.0
    xs = sorted({x0, x1, *[c[0] for c in clipped], *[c[2] for c in clipped]})
    ys = sorted({y0, y1, *[c[1] for c in clipped], *[c[3] for c in clipped]})
    area = 0.0
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            cx, cy = (xs[i] + xs[i + 1]) / 2, (ys[j] + ys[j + 1]) / 2
            if any(c[0] <= cx <= c[2] and c[1] <= cy <= c[3] for c in clipped):
                area += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j])
    return float(area / ((x1 - x0) * (y1 - y0)))


# ---- real long PDFs ----------------------------------------------------------------------------------------------
def r_manuals(directory: str | Path | None = None, min_pages: int = 0) -> list[Path]:
    """The R manuals shipped by the Debian package r-doc-pdf, sorted by name (optionally only those with >= min_pages)."""
    dirs = [Path(directory)] if directory else [Path(d) for d in R_MANUAL_DIRS]
    for d in dirs:
        found = sorted(d.glob("*.pdf")) if d.is_dir() else []
        if found:
            return [p for p in found if min_pages <= 0 or page_count(p) >= min_pages]
    raise UserError(
        f"no R manuals (*.pdf) found in {', '.join(str(d) for d in dirs)}: install the Debian package r-doc-pdf "
        "(`apt-get install r-doc-pdf`; it is in config/debian-packages.txt)"
    )

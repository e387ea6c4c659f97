"""Read a generated report's blocks back from its PDF (written by the shared `common/docbench/doc_benchmark.py` with
`common.documents.PdfBuilder`): the words of the PDF text layer (`common.documents.page_words`) whose centre lies inside
the block's recorded box, in reading order. The harness then works on the text the PDF gives back."""

from __future__ import annotations

from pathlib import Path


def read_blocks(path: Path, elements: dict) -> dict[str, str]:
    """block id -> the text layer's words inside the block's box (elements: id -> Element), in reading order."""
    from neurips26.common.docbench.documents import page_words

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

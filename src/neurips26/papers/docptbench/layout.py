"""From text segments with boxes to a parsed document: visual lines (segments chained left to right, following the
tilt of the line), chunks (split at gaps wider than the line height), tables (two or more consecutive lines of two or
more chunks: rows and cells), text blocks (split at vertical gaps) and headings (short lines that do not end a sentence,
or one-line blocks in a larger font). Segment heights differ between engines (RapidOCR's boxes are padded, so its lines
overlap vertically): the heading rule on text is what makes the structure comparable across parsers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from neurips26.papers.docptbench.parsers import Segment

COLUMN_GAP = 1.3      # a gap wider than 1.3 line heights separates two table cells
BLOCK_GAP = 0.75      # a vertical gap wider than 0.75 line heights starts a new block
HEADING_SCALE = 1.2   # a one-line block whose height is 1.2 x the page's median line height is a heading
HEADING_CHARS = 45    # ... as is a line of at most 45 characters that does not end with sentence punctuation


@dataclass
class Block:
    kind: str                      # heading | text | table
    text: str = ""
    rows: list[list[str]] = field(default_factory=list)


def visual_lines(segments: list[Segment]) -> list[list[Segment]]:
    lines: list[list[Segment]] = []
    for seg in sorted(segments, key=lambda s: s.x0):
        best, best_dy = None, None
        for line in lines:
            last = line[-1]
            dy = abs(seg.cy - last.cy)
            if seg.x0 >= last.x0 and dy < 0.5 * max(seg.height, last.height) and seg.x0 - last.x1 < 12 * last.height:
                if best_dy is None or dy < best_dy:
                    best, best_dy = line, dy
        if best is None:
            lines.append([seg])
        else:
            best.append(seg)
    return sorted(lines, key=lambda line: float(np.median([s.cy for s in line])))


def chunks(line: list[Segment]) -> list[list[Segment]]:
    height = float(np.median([s.height for s in line]))
    out = [[line[0]]]
    for prev, seg in zip(line, line[1:]):
        if seg.x0 - prev.x1 > COLUMN_GAP * height:
            out.append([seg])
        else:
            out[-1].append(seg)
    return out


def _text(segments: list[Segment]) -> str:
    return " ".join(s.text for s in segments)


def heading_like(text: str) -> bool:
    text = text.strip()
    return 0 < len(text) <= HEADING_CHARS and not text.endswith((".", ",", ";", ":")) and any(c.isalpha() for c in text)


def layout(segments: list[Segment]) -> list[Block]:
    """Blocks in reading order (top to bottom)."""
    if not segments:
        return []
    lines = visual_lines(segments)
    heights = [float(np.median([s.height for s in line])) for line in lines]
    page_height = float(np.median(heights))
    parts = [chunks(line) for line in lines]
    texts = [_text(line) for line in lines]
    table_row = [len(p) >= 2 for p in parts]
    big = [h > HEADING_SCALE * page_height for h in heights]
    heading = [not table_row[k] and (heading_like(texts[k]) or big[k]) for k in range(len(lines))]
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and table_row[j]:
            j += 1
        if j - i >= 2:  # a table: rows = lines, cells = chunks
            blocks.append(Block("table", rows=[[_text(c) for c in parts[k]] for k in range(i, j)]))
            i = j
            continue
        if heading[i]:
            blocks.append(Block("heading", text=texts[i]))
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and not heading[i] and not (table_row[i] and i + 1 < len(lines) and table_row[i + 1]):
            gap = min(s.y0 for s in lines[i]) - max(s.y1 for s in lines[i - 1])
            if gap > BLOCK_GAP * page_height:
                break
            i += 1
        blocks.append(Block("text", text=" ".join(texts[start:i])))
    return blocks

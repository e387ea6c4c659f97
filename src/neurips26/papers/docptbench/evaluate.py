"""Scoring one parsed page against its gold, as OmniDocBench v1_0 does it on this layout vocabulary: text edit
(headings + paragraphs, in reading order), table edit (HTML) and TEDS, reading-order edit (matched gold blocks in the
order the parser emitted them), overall = mean of the available edits. Real pages (one gold text, no table, no
order) score the text edit only."""

from __future__ import annotations

import numpy as np

from neurips26.papers.docptbench import metrics, translation_metrics
from neurips26.papers.docptbench.corpus import GoldBlock, Page
from neurips26.papers.docptbench.layout import Block

MATCH_MIN = 0.4   # a parsed block matches a gold block when 1 - normalised edit >= 0.4 (OmniDocBench-style matching)


def block_text(block) -> str:
    return metrics.clean_text(" ".join(" ".join(r) for r in block.rows) if block.kind == "table" else block.text)


def _order(parsed: list[Block], gold: list[GoldBlock]) -> list[int]:
    """Gold index of each parsed block's best match (similarity >= MATCH_MIN), in the parsed order, each gold once."""
    gold_texts = [block_text(g) for g in gold]
    order = []
    for block in parsed:
        text = block_text(block)
        if not text:
            continue
        sims = [1 - metrics.normalised_edit(text, g) for g in gold_texts]
        best = int(np.argmax(sims))
        if sims[best] >= MATCH_MIN and best not in order:
            order.append(best)
    return order


def _best_table(parsed: list[Block], gold_rows: list[list[str]]) -> list[list[str]] | None:
    tables = [b.rows for b in parsed if b.kind == "table"]
    if not tables:
        return None
    return max(tables, key=lambda rows: metrics.teds(rows, gold_rows))


def score_page(page: Page, parsed: list[Block]) -> dict:
    if not page.structured:
        text = metrics.clean_text(" ".join(block_text(b) for b in parsed))
        edit = metrics.normalised_edit(text, metrics.clean_text(page.blocks[0].text))
        return {"text_edit": edit, "table_edit": np.nan, "teds": np.nan, "order_edit": np.nan, "overall_edit": edit}
    gold_text = metrics.clean_text(" ".join(b.text for b in page.blocks if b.kind != "table"))
    pred_text = metrics.clean_text(" ".join(b.text for b in parsed if b.kind != "table"))
    gold_rows = next(b.rows for b in page.blocks if b.kind == "table")
    pred_rows = _best_table(parsed, gold_rows)
    scores = {
        "text_edit": metrics.normalised_edit(pred_text, gold_text),
        "table_edit": metrics.normalised_edit(metrics.table_html(pred_rows), metrics.table_html(gold_rows)),
        "teds": metrics.teds(pred_rows, gold_rows),
        "order_edit": metrics.reading_order_edit(_order(parsed, page.blocks), len(page.blocks)),
    }
    scores["overall_edit"] = float(np.mean([scores["text_edit"], scores["table_edit"], scores["order_edit"]]))
    return scores


def translation_units(blocks) -> list[tuple[str, str]]:
    """(kind, text) of the blocks a translation covers: headings and paragraphs (tables are scored by parsing)."""
    return [(b.kind, b.text) for b in blocks if b.kind != "table" and b.text.strip()]


def score_translation(hyp: list[tuple[str, str]], ref: list[tuple[str, str]], structured: bool) -> dict:
    """The page's BLEU, chrF, METEOR (None without WordNet) and STEDS (generated pages: the R manual pages have one gold
    text block, no headings) as DocPTBench's evaluate.py scores a page's Markdown; all 0-100."""
    h, r = translation_metrics.markdown(hyp), translation_metrics.markdown(ref)
    meteor = translation_metrics.meteor(h, r)
    return {"bleu": translation_metrics.bleu(h, r), "chrf": translation_metrics.chrf(h, r),
            "meteor": np.nan if meteor is None else meteor,
            "steds": translation_metrics.steds(h, r) if structured else np.nan}

"""docptbench documents, translation and scoring: gold structure of generated pages, the apertium batch, a perfect
parse scores perfectly."""

import shutil

import numpy as np
import pytest
from omegaconf import OmegaConf

from neurips26.papers.docptbench import corpus, evaluate, translate
from neurips26.papers.docptbench.layout import Block

needs_apertium = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium (Debian) is not installed")
CFG = OmegaConf.create({"dpi": 50, "sections": 2, "sentences": 2, "table_rows": 3})


def test_generated_page_has_gold_order_and_table(tmp_path):
    page = corpus.generated_pages("en", 1, 0, CFG, tmp_path)[0]
    kinds = [b.kind for b in page.blocks]
    assert kinds == ["heading", "heading", "text", "table", "heading", "text"]
    table = page.blocks[3].rows
    assert len(table) == 4 and all(len(r) == 4 for r in table) and table[0] == corpus.COLUMNS[:4]
    assert page.image.dtype == np.uint8 and page.image.ndim == 2
    again = corpus.generated_pages("en", 1, 0, CFG, tmp_path)[0]
    assert np.array_equal(page.image, again.image)  # deterministic per seed


def test_perfect_parse_scores_zero_edit(tmp_path):
    page = corpus.generated_pages("en", 1, 1, CFG, tmp_path)[0]
    parsed = [Block(b.kind, b.text, b.rows) for b in page.blocks]
    scores = evaluate.score_page(page, parsed)
    assert scores["overall_edit"] == 0.0 and scores["teds"] == 1.0
    shuffled = parsed[::-1]
    assert evaluate.score_page(page, shuffled)["order_edit"] > 0.5
    units = evaluate.translation_units(page.blocks)
    scores = evaluate.score_translation(units, units, True)
    assert (scores["bleu"], scores["chrf"], scores["steds"]) == pytest.approx((100.0, 100.0, 100.0))


@needs_apertium
def test_apertium_batch_keeps_segments():
    out = translate.translate(["The house is big.", "", "The students finished the report."], "eng-spa")
    assert len(out) == 3
    assert out[0] == "La casa es grande."
    back = translate.translate([out[0]], "spa-eng")
    assert back[0].lower().startswith("the house")

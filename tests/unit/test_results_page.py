"""The results page lists planned papers (none are left in this batch, so the tiny end-to-end run cannot show it)."""

from neurips26.common.pipeline.registry import Paper
from neurips26.report.html import page


def test_planned_papers_are_listed_only_when_there_are_some():
    planned = [Paper(id="plant", title="PLANT <xmc>", seed_index=1, status="planned")]
    html = page([], planned, "summary")
    assert "<h2>Planned papers</h2>" in html and "<code>plant</code>" in html and "PLANT &lt;xmc&gt;" in html
    assert "Planned papers" not in page([], [], "summary")

"""The verdicts the repository states: README claims tables generated from claims.json, and the expected verdicts."""

import pytest

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import load_papers
from neurips26.report import verdicts

DOCUMENT = {
    "paper_id": "mec_mmd", "scale": "default", "data": "embedded", "seeds": [0, 1, 2],
    "provenance": {"commit": "0123456789abcdef0123456789abcdef01234567"},
    "claims": [
        {"id": "identity", "kind": "sanity", "criterion": "a = a", "verdict": "holds",
         "statistic": {"name": "a - a", "estimate": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 3},
         "paper_value": {"value": None, "where": "-"}, "controls": []},
        {"id": "rate", "kind": "claim", "criterion": "slope in [-0.6, -0.4] | per seed", "verdict": "inconclusive",
         "why_inconclusive": "slope: the interval straddles", "paper_value": {"value": -0.5, "where": "abstract"},
         "statistic": {"name": "slope", "estimate": -0.52, "ci_low": -0.7, "ci_high": -0.3, "n": 3},
         "controls": [{"id": "naive", "kind": "negative", "passed": True}]},
    ],
}


def test_the_readme_table_is_generated_and_read_back(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{verdicts.BEGIN}\nold hand-typed table\n{verdicts.END}\n\nrest\n")
    table = verdicts.readme_table(DOCUMENT)
    verdicts.rewrite_readme(readme, table)
    text = readme.read_text()
    assert "old hand-typed" not in text and text.endswith("rest\n") and "commit `0123456789`" in text
    assert text.index("`rate`") < text.index("`identity`"), "claims come before sanity checks"
    assert "[-0.7, -0.3], n = 3" in text and "-0.5 (abstract)" in text and "negative `naive`: passed" in text
    assert verdicts.readme_verdicts(readme) == {"rate": "inconclusive", "identity": "holds"}
    readme.write_text("no block")
    with pytest.raises(UserError, match="no <!-- claims:begin -->"):
        verdicts.rewrite_readme(readme, table)


def test_differences_name_every_changed_missing_or_new_verdict():
    expected = {"mec_mmd": {"rate": "holds", "identity": "holds", "gone": "fails"}}
    found = verdicts.differences(expected, {"mec_mmd": DOCUMENT})
    assert found == ["mec_mmd.gone: expected fails, got None", "mec_mmd.rate: expected holds, got inconclusive"]
    assert verdicts.differences({"mec_mmd": {"rate": "inconclusive", "identity": "holds"}}, {"mec_mmd": DOCUMENT}) == []


def test_every_readme_table_states_the_expected_verdicts(repo_root):
    """A README's generated table and config/expected_verdicts.yaml come from the same default run: they agree."""
    expected = verdicts.expected_verdicts(repo_root)
    for paper in [p for p in load_papers(repo_root) if p.implemented]:
        readme = repo_root / "src" / "neurips26" / "papers" / paper.id / "README.md"
        stated = verdicts.readme_verdicts(readme)
        assert verdicts.BEGIN in readme.read_text(), f"{paper.id}: README has no generated claims table"
        if paper.id in expected:
            assert stated == expected[paper.id], paper.id
        else:
            assert not stated, f"{paper.id}: README states verdicts that config/expected_verdicts.yaml does not"

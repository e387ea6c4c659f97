"""`python -m neurips26 new-paper`'s refusals (neurips26/scaffold.py), and its writes into a minimal repository: the id
rule, a taken id, and a write that fails half way leave nothing behind. The scaffolded paper in a full copy of the
repository (dry runs, the repository's own checks) is tests/workflow/test_scaffold.py."""

from __future__ import annotations

import shutil

import pytest
import yaml

from neurips26 import scaffold
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import load_papers


@pytest.mark.parametrize("paper_id", ["toy", "toy_paper", "p2", "a" * scaffold.MAX_ID_LENGTH])
def test_valid_ids_pass(paper_id):
    scaffold.check_id(paper_id)


@pytest.mark.parametrize(("paper_id", "message"), [
    ("Toy", "lower case"), ("toy-paper", "lower case"), ("2toy", "starting with a letter"), ("_toy", "lower case"),
    ("toy paper", "lower case"), ("", "lower case"), ("tóy", "lower case"), ("toy\n", "lower case"),
    ("a" * (scaffold.MAX_ID_LENGTH + 1), "at most"),
    ("class", "Python keyword"), ("import", "Python keyword"),
    ("report", "reserved"), ("data", "reserved"), ("papers", "reserved"), ("verdicts", "reserved"), ("all", "reserved"),
])
def test_invalid_ids_are_refused_with_the_rule(paper_id, message):
    with pytest.raises(UserError, match=message):
        scaffold.check_id(paper_id)


@pytest.fixture
def mini_root(repo_root, tmp_path):
    """The two files the scaffold edits, copied; everything else it writes is new."""
    for rel in (scaffold.REGISTRY, scaffold.README):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(repo_root / rel, tmp_path / rel)
    return tmp_path


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} | {
        p.relative_to(root).as_posix() + "/": b"" for p in root.rglob("*") if p.is_dir()}


def test_the_scaffold_appends_a_planned_entry_and_writes_every_file(mini_root):
    before = (mini_root / scaffold.REGISTRY).read_text()
    written = scaffold.scaffold("toy", "A toy: \"quoted\" | title", root=mini_root, date="2026-12-03")
    assert set(written) == {*scaffold.target_paths("toy"), scaffold.REGISTRY, scaffold.README}
    after = (mini_root / scaffold.REGISTRY).read_text()
    assert after.startswith(before), "the registry's existing text (comments included) is kept"
    papers = load_papers(mini_root)
    new = papers[-1]
    assert (new.id, new.title, new.status) == ("toy", "A toy: \"quoted\" | title", "planned")
    assert new.seed_index == max(p.seed_index for p in papers[:-1]) + 1
    assert new.figures == ["figures/main.png"] and new.tables == ["tables/main.csv"]
    readme = (mini_root / "src/neurips26/papers/toy/README.md").read_text()
    assert "<!-- claims:begin -->\n<!-- claims:end -->" in readme
    assert "## 2026-12-03: scaffold" in (mini_root / "src/neurips26/papers/toy/JOURNAL.md").read_text()
    assert "`toy`" in (mini_root / scaffold.README).read_text()
    config = yaml.safe_load((mini_root / "config/toy/config.yaml").read_text())
    assert config["defaults"] == ["_self_", {"scale": "default"}] and config["paper_id"] == "toy"


def test_a_taken_id_is_refused_and_nothing_is_written(mini_root):
    before = _snapshot(mini_root)
    with pytest.raises(UserError, match="'mec_mmd' is taken: config/papers.yaml"):
        scaffold.scaffold("mec_mmd", root=mini_root)
    (mini_root / "config/half").mkdir()  # a folder left from an earlier attempt, not in the registry
    before = _snapshot(mini_root)
    with pytest.raises(UserError, match="'half' is taken: config/half"):
        scaffold.scaffold("half", root=mini_root)
    assert _snapshot(mini_root) == before


def test_a_failed_write_removes_what_it_wrote_and_restores_the_edited_files(mini_root, monkeypatch):
    before = _snapshot(mini_root)
    real_write = scaffold.write_text

    def failing(path, text):
        if path.name == scaffold.README:  # the last edit: every new file and the registry are written by then
            raise OSError("disk full")
        real_write(path, text)

    monkeypatch.setattr(scaffold, "write_text", failing)
    with pytest.raises(OSError, match="disk full"):
        scaffold.scaffold("toy", root=mini_root)
    assert _snapshot(mini_root) == before


def test_a_multi_line_title_is_refused(mini_root):
    with pytest.raises(UserError, match="one non-empty line"):
        scaffold.scaffold("toy", "two\nlines", root=mini_root)

"""common/pipeline/parse_memo.py: facts remembered across Snakefile parses must equal the facts computed afresh (hashlib and
code_deps' own scan, on every module of the package), come back from disk without reading the files, and be computed
again after any edit, including one that keeps the size and puts the old mtime back. A check passes once per input."""

import hashlib
import json
import os
from pathlib import Path

import pytest

from neurips26.common.pipeline.code_deps import code_closure, imported_names
from neurips26.common.pipeline.parse_memo import SourceFacts, _stat_key, check_once

SRC = Path(__file__).resolve().parents[2] / "src"


def test_the_facts_equal_a_fresh_scan_of_every_module(tmp_path):
    facts = SourceFacts(SRC, tmp_path)
    for path in sorted((SRC / "neurips26").rglob("*.py")):
        assert facts.sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()
        assert facts.imported_names(path, SRC) == imported_names(path, SRC)


def test_a_closure_through_the_facts_is_the_plain_closure(tmp_path):
    papers = sorted(p for p in (SRC / "neurips26" / "papers").iterdir() if p.is_dir())
    facts = SourceFacts(SRC, tmp_path)
    for package in papers:
        modules = sorted(package.glob("*.py"))
        assert code_closure(modules, SRC, names=facts.imported_names) == code_closure(modules, SRC)


@pytest.fixture
def module(tmp_path):
    src = tmp_path / "src"
    (src / "neurips26").mkdir(parents=True)
    (src / "neurips26" / "__init__.py").write_text("")
    (src / "neurips26" / "a.py").write_text("from neurips26 import b\n")
    (src / "neurips26" / "b.py").write_text("x = 1\n")
    return src


def test_saved_facts_come_back_without_reading_the_files(module, tmp_path, monkeypatch):
    first = SourceFacts(module, tmp_path / "memo")
    expected = (first.sha256(module / "neurips26" / "a.py"), first.imported_names(module / "neurips26" / "a.py", module))
    first.save()
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self} was read again"))
    second = SourceFacts(module, tmp_path / "memo")
    path = module / "neurips26" / "a.py"
    assert (second.sha256(path), second.imported_names(path, module)) == expected
    assert not second.changed


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(module, tmp_path):
    path = module / "neurips26" / "a.py"
    memo = SourceFacts(module, tmp_path / "memo")
    memo.imported_names(path, module)
    memo.save()
    status = os.stat(path)
    path.write_text("from neurips26 import c\n")  # same length as before
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))  # and the old mtime put back
    assert os.stat(path).st_size == status.st_size
    reloaded = SourceFacts(module, tmp_path / "memo")
    assert reloaded.imported_names(path, module) == {"neurips26", "neurips26.c"}
    assert reloaded.sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_damaged_or_foreign_memo_is_ignored(module, tmp_path):
    path = module / "neurips26" / "b.py"
    memo_file = tmp_path / "memo" / "source_facts.json"
    memo_file.parent.mkdir()
    for stored in ['{"version": 1, "src', json.dumps({"version": 0, "src": str(module), "entries": {
            str(path): {"key": _stat_key(str(path)), "sha256": "0" * 64, "imports": ["neurips26.wrong"]}}})]:
        memo_file.write_text(stored)
        facts = SourceFacts(module, tmp_path / "memo")
        assert facts.sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_saving_writes_only_after_new_facts_and_drops_deleted_files(module, tmp_path):
    folder = tmp_path / "memo"
    memo = SourceFacts(module, folder)
    memo.save()
    assert not folder.exists()  # nothing learnt, nothing written
    memo.sha256(module / "neurips26" / "b.py")
    (module / "neurips26" / "a.py").unlink()
    memo.entries[str(module / "neurips26" / "a.py")] = {"key": [], "sha256": "", "imports": []}
    memo.save()
    assert list(json.loads((folder / "source_facts.json").read_text())["entries"]) == [str(module / "neurips26" / "b.py")]
    assert [p.name for p in folder.iterdir()] == ["source_facts.json"]  # no partial file left


def test_facts_refuse_another_source_root(module, tmp_path):
    with pytest.raises(ValueError, match="sources under"):
        SourceFacts(module, tmp_path / "memo").imported_names(module / "neurips26" / "a.py", tmp_path)


def test_a_check_runs_once_per_input_and_a_failure_is_not_remembered(tmp_path):
    calls = []
    check_once(lambda: calls.append("a"), ["config a", "schema"], tmp_path)
    check_once(lambda: calls.append("a again"), ["config a", "schema"], tmp_path)
    check_once(lambda: calls.append("b"), ["config b", "schema"], tmp_path)
    check_once(lambda: calls.append("split"), ["config a", "", "schema"], tmp_path)
    assert calls == ["a", "b", "split"]

    def failing():
        raise RuntimeError("bad config")

    for _ in range(2):  # a failure leaves no marker: the second call fails again
        with pytest.raises(RuntimeError):
            check_once(failing, ["config c"], tmp_path)
    assert len(list(tmp_path.iterdir())) == 3

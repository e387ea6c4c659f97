"""common/pipeline/code_stamp: one file stands for a rule's source files. Its text is checked against coreutils `sha256sum`
(an independent implementation), and its rewrite rule against what Snakemake needs: a new text and a new-enough mtime
when a file's content changes, nothing when a file is only touched."""

import os
import subprocess

import pytest

from neurips26.common.pipeline.code_stamp import code_stamp


@pytest.fixture
def sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    for index, name in enumerate(["a.py", "b.py", "c.py"]):
        path = tmp_path / "pkg" / name
        path.write_text(f"x = {index}\n")
        os.utime(path, ns=(10**18 + index * 10**9, 10**18 + index * 10**9))  # distinct, known mtimes
    return ["pkg/a.py", "pkg/b.py", "pkg/c.py"]


def test_the_text_is_sha256sums_and_checks(sources, tmp_path):
    stamp = code_stamp(sources, tmp_path / "stamps")
    expected = subprocess.run(["sha256sum", *sources], capture_output=True, text=True, check=True).stdout
    assert open(stamp).read() == expected
    assert subprocess.run(["sha256sum", "--check", "--quiet", stamp]).returncode == 0


def test_the_mtime_is_the_newest_files(sources, tmp_path):
    stamp = code_stamp(sources, tmp_path / "stamps")
    assert os.stat(stamp).st_mtime_ns == max(os.stat(f).st_mtime_ns for f in sources)


def test_an_edit_rewrites_it_and_a_touch_does_not(sources, tmp_path):
    folder = tmp_path / "stamps"
    stamp = code_stamp(sources, folder)
    text, mtime = open(stamp).read(), os.stat(stamp).st_mtime_ns
    os.utime(sources[0])  # touched: newer, same content
    assert code_stamp(sources, folder) == stamp
    assert (open(stamp).read(), os.stat(stamp).st_mtime_ns) == (text, mtime)
    with open(sources[1], "a") as handle:
        handle.write("y = 1\n")
    assert code_stamp(sources, folder) == stamp  # same list, same path
    assert open(stamp).read() != text
    assert os.stat(stamp).st_mtime_ns == max(os.stat(f).st_mtime_ns for f in sources) > mtime
    assert sorted(p.name for p in folder.iterdir()) == [os.path.basename(stamp)]  # no partial file left


def test_each_list_has_its_own_stamp(sources, tmp_path):
    folder = tmp_path / "stamps"
    assert code_stamp(sources[:2], folder) != code_stamp(sources, folder)
    assert code_stamp(sources[:2], folder) == code_stamp(list(sources[:2]), folder)
    with pytest.raises(ValueError, match="at least one file"):
        code_stamp([], folder)

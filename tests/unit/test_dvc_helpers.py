"""python -m neurips26 dvc-pulled and dvc-plots-offline on small hand-made folders (the workflow tests run them for real)."""

import os

import pytest
import yaml

from neurips26 import dvc_pulled
from neurips26.common.pipeline.errors import UserError
from neurips26.dvc_plots_offline import make_offline

DVC_PAGE = """<html><head>
    <script src="https://cdn.jsdelivr.net/npm/vega@5.20.2"></script>
    <script src="https://cdn.jsdelivr.net/npm/vega-lite@5.2.0"></script>
    <script src="https://cdn.jsdelivr.net/npm/vega-embed@6.18.2"></script>
</head><body><div id="p"></div></body></html>"""


def pulled_tree(root):
    """A dvc.lock with a folder output and a file output, written in the wrong order (a table older than its run)."""
    lock = {"schema": "2.0", "stages": {"p": {"cmd": "x", "outs": [{"path": "results/p", "md5": "0"},
                                                                    {"path": "data/raw", "md5": "1"}]}}}
    (root / "dvc.lock").write_text(yaml.safe_dump(lock))
    files = [root / "results/p/runs/seed0.csv", root / "results/p/tables/main.csv", root / "data/raw/d/provenance.json"]
    for age, path in enumerate(files):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        os.utime(path, (1000 + age, 1000 + 10 * (3 - age)))
    return files


def test_settle_gives_every_pulled_path_one_time(tmp_path):
    files = pulled_tree(tmp_path)
    (tmp_path / "README").write_text("tracked by git, not by DVC")
    os.utime(tmp_path / "README", (5, 5))
    count = dvc_pulled.settle(tmp_path)
    times = {p.stat().st_mtime_ns for p in files} | {(tmp_path / "results/p/runs").stat().st_mtime_ns}
    assert len(times) == 1 and count == 8  # 2 outputs, 3 folders below them, 3 files
    assert (tmp_path / "README").stat().st_mtime == 5


def test_nothing_is_touched_when_dvc_status_is_not_clean(tmp_path, monkeypatch):
    files = pulled_tree(tmp_path)
    before = [p.stat().st_mtime_ns for p in files]
    monkeypatch.setattr(dvc_pulled, "repo_root", lambda: tmp_path)
    monkeypatch.setattr(dvc_pulled, "dvc_status", lambda root: {"p": [{"changed deps": {"config/p": "modified"}}]})
    with pytest.raises(UserError, match="not clean"):
        dvc_pulled.main([])
    assert [p.stat().st_mtime_ns for p in files] == before


def test_a_missing_output_is_named(tmp_path):
    pulled_tree(tmp_path)
    import shutil

    shutil.rmtree(tmp_path / "data/raw")
    with pytest.raises(UserError, match="data/raw is in dvc.lock but not here"):
        dvc_pulled.settle(tmp_path)


def test_offline_page_loads_the_vega_libraries_from_its_folder(tmp_path):
    (tmp_path / "index.html").write_text(DVC_PAGE)
    make_offline(tmp_path)
    html = (tmp_path / "index.html").read_text()
    assert "https://" not in html
    for name in ("vega", "vega-lite", "vega-embed"):
        assert f'<script src="vendor/{name}.js"></script>' in html
        assert (tmp_path / "vendor" / f"{name}.js").stat().st_size > 100_000
        assert (tmp_path / "vendor" / f"{name}.LICENSE").is_file()


def test_offline_page_refuses_a_missing_or_unknown_page(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        make_offline(tmp_path)
    (tmp_path / "index.html").write_text(DVC_PAGE.replace("@5.20.2\"", "@5.20.2\" defer"))
    with pytest.raises(UserError, match="still points to the CDN"):
        make_offline(tmp_path)
    assert "cdn.jsdelivr.net/npm/vega@5.20.2" in (tmp_path / "index.html").read_text()

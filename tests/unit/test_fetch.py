"""The real-data path against a local HTTP server on 127.0.0.1: a good file, a corrupted one, a missing one."""

import hashlib
import http.server
import threading
from functools import partial

import pytest
import yaml

from neurips26.common.datasets import fetch_real, get_dataset
from neurips26.common.errors import UserError
from neurips26.common.fetch import download, verify_sha256

GOOD = b"x1,x2\n0.5,1.5\n" * 1000


@pytest.fixture
def server(tmp_path):
    """Serves good.csv, and corrupt.csv whose bytes differ from the registered checksum; anything else is a 404."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "good.csv").write_bytes(GOOD)
    (served / "corrupt.csv").write_bytes(GOOD[:-7] + b"garbage")
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


SHA = hashlib.sha256(GOOD).hexdigest()


def test_good_file_lands_verified(server, tmp_path):
    dest = tmp_path / "data" / "raw" / "toy" / "good.csv"
    download(f"{server}/good.csv", dest, SHA)
    assert dest.read_bytes() == GOOD
    assert [p.name for p in dest.parent.iterdir()] == ["good.csv"]


@pytest.mark.parametrize(("name", "message"), [("corrupt.csv", "corrupted: sha256"), ("missing.csv", "HTTP 404")])
def test_bad_downloads_fail_clearly_and_leave_nothing_under_data(server, tmp_path, name, message):
    data = tmp_path / "data"
    data.mkdir()
    with pytest.raises(UserError, match=message):
        download(f"{server}/{name}", data / "raw" / "toy" / name, SHA)
    assert list(data.rglob("*")) == []


def test_a_truncated_file_on_disk_is_detected(tmp_path):
    path = tmp_path / "good.csv"
    path.write_bytes(GOOD[:100])
    with pytest.raises(UserError, match="is corrupted"):
        verify_sha256(path, SHA)


def test_dataset_registry_fetch_writes_provenance(server, tmp_path):
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [{
        "id": "toy", "papers": ["mec_mmd"], "license": "CC0",
        "real": {"files": [{"name": "good.csv", "url": f"{server}/good.csv", "sha256": SHA}]}}]}))
    paths = fetch_real(get_dataset("toy", registry), tmp_path)
    assert [p.read_bytes() for p in paths] == [GOOD]
    provenance = yaml.safe_load((tmp_path / "data/raw/toy/provenance.json").read_text())
    assert provenance["files"]["good.csv"]["sha256"] == SHA and provenance["mode"] == "real"


def test_the_shipped_dataset_registry_is_well_formed(repo_root):
    from neurips26.common.datasets import load_datasets

    datasets = load_datasets(repo_root / "config" / "datasets.yaml")
    assert datasets, "config/datasets.yaml lists no dataset"
    for dataset in datasets.values():
        assert dataset.embedded or dataset.real, dataset.id


def _registry(tmp_path, embedded):
    path = tmp_path / "datasets.yaml"
    path.write_text(yaml.safe_dump({"datasets": [{"id": "pkg", "papers": [], "license": "MIT", "embedded": embedded}]}))
    return path


def test_embedded_files_are_copied_from_the_installed_package_and_verified(tmp_path):
    import importlib.metadata

    from neurips26.common.datasets import prepare

    origin = next(f for f in importlib.metadata.files("pyyaml") if str(f) == "yaml/__init__.py")
    sha = hashlib.sha256(origin.locate().read_bytes()).hexdigest()
    good = _registry(tmp_path, {"package": "pyyaml", "files": [{"path": "yaml/__init__.py", "sha256": sha}]})
    provenance = prepare(get_dataset("pkg", good), "embedded", tmp_path)
    assert (tmp_path / "data/raw/pkg/__init__.py").read_bytes() == origin.locate().read_bytes()
    assert yaml.safe_load(provenance.read_text())["package"] == "pyyaml"

    other = tmp_path / "other"
    other.mkdir()
    bad = _registry(other, {"package": "pyyaml", "files": [{"path": "yaml/__init__.py", "sha256": "0" * 64}]})
    with pytest.raises(UserError, match="is corrupted"):
        prepare(get_dataset("pkg", bad), "embedded", other)
    assert not (other / "data").exists()
    missing = _registry(other, {"package": "no-such-package-x", "files": []})
    with pytest.raises(UserError, match="not installed"):
        prepare(get_dataset("pkg", missing), "embedded", other)


MD5 = hashlib.md5(GOOD).hexdigest()


def test_an_md5_only_source_is_verified_and_its_sha256_recorded(server, tmp_path):
    """CIFAR's maintainers publish md5 sums only: the download is checked against the md5, provenance gets the sha256."""
    download(f"{server}/good.csv", tmp_path / "data" / "a" / "good.csv", None, md5=MD5)
    with pytest.raises(UserError, match="corrupted: md5"):
        download(f"{server}/corrupt.csv", tmp_path / "data" / "b" / "corrupt.csv", None, md5=MD5)
    assert not (tmp_path / "data" / "b").exists()
    with pytest.raises(UserError, match="no checksum"):
        download(f"{server}/good.csv", tmp_path / "data" / "c" / "good.csv", None)
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [{
        "id": "toy", "papers": ["prequential_mdl"], "license": "CC0",
        "real": {"files": [{"name": "good.csv", "url": f"{server}/good.csv", "md5": MD5}]}}]}))
    fetch_real(get_dataset("toy", registry), tmp_path)
    provenance = yaml.safe_load((tmp_path / "data/raw/toy/provenance.json").read_text())
    assert provenance["files"]["good.csv"] == {"url": f"{server}/good.csv", "sha256": SHA, "md5": MD5}
    (tmp_path / "data/raw/toy/good.csv").write_bytes(GOOD[:-1] + b"!")  # corrupted on disk: caught on the next fetch
    with pytest.raises(UserError, match="corrupted: md5"):
        fetch_real(get_dataset("toy", registry), tmp_path)


def test_a_registry_entry_needs_a_valid_sha256_or_md5(tmp_path):
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [{
        "id": "toy", "real": {"files": [{"name": "a", "url": "http://127.0.0.1/a", "md5": "abc"}]}}]}))
    with pytest.raises(UserError, match="no valid sha256"):
        get_dataset("toy", registry)

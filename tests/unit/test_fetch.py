"""The real-data path against a local HTTP server on 127.0.0.1: a good file, a corrupted one, a missing one."""

import hashlib
import http.server
import threading
from functools import partial

import numpy as np
import pytest
import yaml

from neurips26.common.data.datasets import fetch_real, get_dataset
from neurips26.common.data.fetch import download
from neurips26.common.pipeline.digests import verify_sha256
from neurips26.common.pipeline.errors import UserError

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
    from neurips26.common.data.datasets import load_datasets

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

    from neurips26.common.data.datasets import prepare

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


def test_a_published_md5_verifies_the_download_and_the_sha256_is_pinned_in_provenance(server, tmp_path):
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [{
        "id": "toy", "papers": [], "license": "CC0",
        "real": {"files": [{"name": "good.csv", "url": f"{server}/good.csv", "md5": MD5}]}}]}))
    fetch_real(get_dataset("toy", registry), tmp_path)
    pinned = yaml.safe_load((tmp_path / "data/raw/toy/provenance.json").read_text())["files"]["good.csv"]
    assert pinned["sha256"] == SHA and pinned["md5"] == MD5 and "pinned" in pinned["sha256_source"]


def test_a_wrong_md5_keeps_nothing(server, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with pytest.raises(UserError, match="corrupted: md5"):
        download(f"{server}/corrupt.csv", data / "raw" / "toy" / "corrupt.csv", md5=MD5)
    assert list(data.rglob("*")) == []


@pytest.mark.parametrize("checksums", [{"sha256": "abc"}, {"md5": "0" * 31}, {"sha256": "0" * 64, "md5": "x"}])
def test_a_registry_file_with_a_malformed_checksum_is_rejected(tmp_path, checksums):
    """No checksum at all is allowed (pinned on first fetch, tests/unit/test_source_lock.py); a malformed one is not."""
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [{
        "id": "toy", "papers": [], "license": "CC0",
        "real": {"files": [{"name": "good.csv", "url": "http://127.0.0.1:9/good.csv", **checksums}]}}]}))
    with pytest.raises(UserError, match="needs a valid sha256"):
        get_dataset("toy", registry)


def test_the_shipped_cifar10_source_goes_through_a_mirror_and_is_md5_checked(server, tmp_path, monkeypatch, repo_root):
    """data: real for wd_eos end to end, against a local mirror: the shipped entry's md5 rejects a stand-in archive and
    keeps nothing; with the stand-in's md5 registered, the archive lands and the wd_eos loader reads it."""
    from omegaconf import OmegaConf

    from neurips26.papers.wd_eos import data as wd_eos_data
    from tests.unit.test_wd_eos_stages import _cifar_archive

    served = tmp_path / "served" / "cifar10"
    _cifar_archive(served, [(np.arange(12 * 3072, dtype=np.uint8).reshape(12, 3072) % 251, np.arange(12) % 10)])
    mirror = server  # the fixture serves tmp_path/served
    monkeypatch.setenv("NEURIPS26_DATA_MIRROR", mirror)
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    with pytest.raises(UserError, match="corrupted: md5"):
        fetch_real(get_dataset("cifar10", repo_root / "config" / "datasets.yaml"), root)
    assert list((root / "data").rglob("*")) == []

    entry = yaml.safe_load((repo_root / "config" / "datasets.yaml").read_text())
    cifar = next(d for d in entry["datasets"] if d["id"] == "cifar10")
    archive = served / "cifar-10-python.tar.gz"
    cifar["real"]["files"][0]["md5"] = hashlib.md5(archive.read_bytes()).hexdigest()
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [cifar]}))
    fetch_real(get_dataset("cifar10", registry), root)
    provenance = yaml.safe_load((root / "data/raw/cifar10/provenance.json").read_text())
    assert provenance["files"]["cifar-10-python.tar.gz"]["url"] == f"{mirror}/cifar10/cifar-10-python.tar.gz"
    cfg = OmegaConf.create({"data": "real", "cifar10": {"n_train": 8}, "probe_size": 4})
    split = wd_eos_data.load_split(root / "data/raw/cifar10", cfg)
    assert split.x_train.shape == (8, 3072) and split.shape == (3, 32, 32)

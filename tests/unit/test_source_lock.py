"""Pin on first fetch (data/sources.lock) against a local HTTP server on 127.0.0.1, never the internet: the first fetch
pins, later fetches verify, a changed byte at the source fails with both digests and keeps nothing, a cut download keeps
nothing, lock-data re-pins deliberately, and the official MNIST layout goes fetch -> pin -> verify -> load."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import json
import threading
from functools import partial

import numpy as np
import pytest
import yaml

from neurips26.common.data.datasets import fetch_real, get_dataset
from neurips26.common.data.fetch import download
from neurips26.common.data.source_lock import Pin, read_lock, record_pin
from neurips26.common.pipeline.errors import UserError

GOOD = b"a,b\n1,2\n" * 500
SHA = hashlib.sha256(GOOD).hexdigest()
REGISTERED = "https://example.invalid/toy"  # the registered URL: recorded in the lock, never contacted (a mirror serves)


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the folder; counts GETs; `cut/<file>` announces the whole file but closes the connection halfway."""

    requests: list[str]

    def do_GET(self):
        self.requests.append(self.path)
        if self.path.startswith("/cut/"):
            self.send_response(200)
            self.send_header("Content-Length", str(len(GOOD)))
            self.end_headers()
            self.wfile.write(GOOD[: len(GOOD) // 2])
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A local server for tmp_path/served, set as NEURIPS26_DATA_MIRROR: files are fetched from <mirror>/<id>/<name>.
    Yields (served folder, list of requested paths)."""
    served = tmp_path / "served"
    (served / "toy").mkdir(parents=True)
    (served / "toy" / "good.csv").write_bytes(GOOD)
    requests: list[str] = []
    handler = partial(type("H", (Handler,), {"requests": requests}), directory=str(served))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("NEURIPS26_DATA_MIRROR", url)
    yield served, requests, url
    httpd.shutdown()
    httpd.server_close()


def _registry(root, files, dataset="toy"):
    """config/datasets.yaml under `root` with one dataset whose real files carry no checksum unless given."""
    path = root / "config" / "datasets.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"datasets": [{"id": dataset, "papers": [], "license": "CC0", "real": {"files": [
        {"name": name, "url": f"{REGISTERED}/{name}", **checksums} for name, checksums in files.items()]}}]}))
    return path


def _fetch(root, files=None, refresh=False):
    return fetch_real(get_dataset("toy", _registry(root, files or {"good.csv": {}})), root, refresh)


def test_the_first_fetch_pins_sha256_size_and_the_registered_url(mirror, tmp_path):
    _fetch(tmp_path)
    pin = read_lock(tmp_path / "data" / "sources.lock")[("toy", "good.csv")]
    assert pin == Pin("toy", "good.csv", len(GOOD), SHA, f"{REGISTERED}/good.csv")  # the mirror's URL is not pinned
    provenance = json.loads((tmp_path / "data/raw/toy/provenance.json").read_text())["files"]["good.csv"]
    assert provenance["sha256"] == SHA and provenance["sha256_source"] == "pinned on first fetch in data/sources.lock"


def test_a_later_fetch_verifies_against_the_pin_and_downloads_nothing_new(mirror, tmp_path):
    _, requests, _ = mirror
    _fetch(tmp_path)
    lock = tmp_path / "data" / "sources.lock"
    before = lock.stat().st_mtime_ns, lock.read_text()
    _fetch(tmp_path)
    assert requests == ["/toy/good.csv"] and (lock.stat().st_mtime_ns, lock.read_text()) == before
    (tmp_path / "data/raw/toy/good.csv").unlink()  # another machine: the committed lock, no data yet
    _fetch(tmp_path)
    assert len(requests) == 2 and lock.read_text() == before[1]


def test_a_changed_byte_at_the_source_fails_the_next_fetch_with_both_digests_and_keeps_nothing(mirror, tmp_path):
    served, _, _ = mirror
    _fetch(tmp_path)
    lock_text = (tmp_path / "data" / "sources.lock").read_text()
    tampered = bytearray(GOOD)
    tampered[100] ^= 1
    (served / "toy" / "good.csv").write_bytes(bytes(tampered))
    raw = tmp_path / "data" / "raw" / "toy"
    (raw / "good.csv").unlink()
    with pytest.raises(UserError) as error:
        _fetch(tmp_path)
    message = str(error.value)
    assert "good.csv" in message and SHA in message and hashlib.sha256(tampered).hexdigest() in message
    assert "make lock-data DATASETS=toy" in message
    assert sorted(p.name for p in raw.iterdir()) == ["provenance.json"]  # no good.csv, no .part file
    assert (tmp_path / "data" / "sources.lock").read_text() == lock_text


def test_a_changed_file_on_disk_fails_against_its_pin(mirror, tmp_path):
    _fetch(tmp_path)
    (tmp_path / "data/raw/toy/good.csv").write_bytes(GOOD[:-1] + b"!")
    with pytest.raises(UserError, match=f"good.csv is corrupted: sha256 [0-9a-f]{{64}}, expected {SHA}"):
        _fetch(tmp_path)


def test_a_cut_download_is_a_clear_error_that_keeps_nothing(mirror, tmp_path):
    _, _, url = mirror
    data = tmp_path / "data"
    data.mkdir()
    with pytest.raises(UserError, match="ended after 2000 of 4000 bytes"):
        download(f"{url}/cut/good.csv", data / "raw" / "toy" / "good.csv", SHA)
    with pytest.raises(UserError, match="ended after 2000 of 4000 bytes"):  # a first fetch must not pin half a file either
        download(f"{url}/cut/good.csv", data / "raw" / "toy" / "good.csv", first_fetch=True)
    assert list(data.rglob("*")) == []


def test_a_failed_first_fetch_pins_nothing(mirror, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with pytest.raises(UserError, match="HTTP 404"):
        _fetch(tmp_path, {"missing.csv": {}})
    assert list(data.rglob("*")) == []


def test_lock_data_re_pins_deliberately_and_leaves_a_maintainer_sha256_alone(mirror, tmp_path, monkeypatch):
    from neurips26.cli import main

    served, requests, _ = mirror
    (served / "toy" / "fixed.csv").write_bytes(b"fixed\n")
    files = {"good.csv": {}, "fixed.csv": {"sha256": hashlib.sha256(b"fixed\n").hexdigest()}}
    _fetch(tmp_path, files)
    newer = GOOD + b"3,4\n"
    (served / "toy" / "good.csv").write_bytes(newer)
    (tmp_path / "data/raw/toy/good.csv").unlink()
    with pytest.raises(UserError, match="expected " + SHA):
        _fetch(tmp_path, files)

    monkeypatch.setenv("NEURIPS26_ROOT", str(tmp_path))
    requests.clear()
    assert main(["lock-data", "toy"]) == 0
    pins = read_lock(tmp_path / "data" / "sources.lock")
    assert list(pins) == [("toy", "good.csv")]  # a sha256 in config/datasets.yaml is the pin: never in the lock
    assert pins[("toy", "good.csv")].sha256 == hashlib.sha256(newer).hexdigest()
    assert pins[("toy", "good.csv")].size == len(newer) and requests == ["/toy/good.csv"]
    assert (tmp_path / "data/raw/toy/good.csv").read_bytes() == newer
    _fetch(tmp_path, files)


def test_a_changed_url_needs_a_deliberate_re_pin(mirror, tmp_path):
    _fetch(tmp_path)
    text = (tmp_path / "data" / "sources.lock").read_text().replace(REGISTERED, "https://elsewhere.invalid")
    (tmp_path / "data" / "sources.lock").write_text(text)
    with pytest.raises(UserError, match="re-pin it deliberately"):
        _fetch(tmp_path)


def test_the_lock_is_sorted_one_line_per_file_and_safe_under_concurrent_writers(tmp_path):
    lock = tmp_path / "data" / "sources.lock"
    pins = [Pin(f"set{i % 3}", f"file{i}.bin", i, f"{i:064x}", f"https://example.invalid/{i}") for i in range(12)]
    threads = [threading.Thread(target=record_pin, args=(lock, pin)) for pin in reversed(pins)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = [line for line in lock.read_text().splitlines() if not line.startswith("#")]
    assert lines == sorted(lines, key=lambda line: tuple(line.split("\t")[:2])) and len(lines) == 12
    assert set(read_lock(lock).values()) == set(pins)
    lock.write_text(lock.read_text() + "set0\tbroken\n")
    with pytest.raises(UserError, match="sources.lock:16: malformed pin"):
        read_lock(lock)


def test_the_shipped_lock_pins_only_registered_files_without_a_sha256(repo_root):
    from neurips26.common.data.datasets import load_datasets

    datasets = load_datasets(repo_root / "config" / "datasets.yaml")
    for (dataset, name), pin in read_lock(repo_root / "data" / "sources.lock").items():
        registered = {f.name: f for f in datasets[dataset].real}
        assert name in registered and registered[name].sha256 is None and registered[name].url == pin.url, pin


def _idx_gz(array: np.ndarray) -> bytes:
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(n).to_bytes(4, "big") for n in array.shape)
    return gzip.compress(header + array.astype(np.uint8).tobytes(), mtime=0)


def test_official_mnist_layout_fetch_pin_verify_then_kondo_gates_loader_reads_it(mirror, tmp_path, repo_root):
    """The shipped kondo_gate_mnist source (its URLs, never contacted) without the published md5, which a stand-in would
    fail: tiny IDX files in the official layout are pinned, verified by a second fetch and the stage check, then read."""
    from neurips26.common.pipeline.provenance import verified_input
    from neurips26.papers.kondo_gate.data import load_mnist

    served, requests, _ = mirror
    images = np.arange(6 * 784).reshape(6, 28, 28) % 256
    (served / "kondo_gate_mnist").mkdir()
    (served / "kondo_gate_mnist" / "train-images-idx3-ubyte.gz").write_bytes(_idx_gz(images))
    (served / "kondo_gate_mnist" / "train-labels-idx1-ubyte.gz").write_bytes(_idx_gz(np.arange(6) % 10))
    shipped = yaml.safe_load((repo_root / "config" / "datasets.yaml").read_text())["datasets"]
    entry = next(d for d in shipped if d["id"] == "kondo_gate_mnist")
    for f in entry["real"]["files"]:
        del f["md5"]
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"datasets": [entry]}))
    root = tmp_path / "repo"
    for _ in range(2):
        fetch_real(get_dataset("kondo_gate_mnist", registry), root)
    assert len(requests) == 2  # the second fetch verified the pinned files, downloaded nothing
    pins = read_lock(root / "data" / "sources.lock")
    assert sorted(name for _, name in pins) == ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]
    assert all(pin.url.startswith("https://ossci-datasets.s3.amazonaws.com/mnist/") for pin in pins.values())
    x, y = load_mnist(verified_input(root / "data/raw/kondo_gate_mnist"), real=True)
    assert x.shape == (6, 784) and np.allclose(x * 255, images.reshape(6, 784)) and list(y) == [0, 1, 2, 3, 4, 5]

"""Hub files (common/data/hf_source.py) against an offline huggingface_hub cache built by the test, never the internet:
the first fetch pins the sha256 and the commit it came from, a later fetch downloads that commit even after the
repository moved on, changed bytes at the pinned commit fail with both digests and keep nothing, and HF_TOKEN reaches no
file."""

from __future__ import annotations

import hashlib
import json

import huggingface_hub.constants
import pytest
import yaml

from neurips26.common.data.datasets import fetch_real, get_dataset
from neurips26.common.data.source_lock import read_lock
from neurips26.common.pipeline.errors import UserError

FIRST, SECOND = "a" * 40, "b" * 40
ROWS = b'{"problem": "1 + 1", "answer": "2", "level": 1}\n' * 50


def _snapshot(root, commit, data, main=True):
    """huggingface_hub's cache layout for datasets/org/toy: refs/main -> commit, snapshots/<commit>/data/test.jsonl."""
    repo = root / "data" / "cache" / "huggingface" / "datasets--org--toy"
    (repo / "snapshots" / commit / "data").mkdir(parents=True, exist_ok=True)
    (repo / "snapshots" / commit / "data" / "test.jsonl").write_bytes(data)
    if main:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(commit)
    return repo / "snapshots" / commit / "data" / "test.jsonl"


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def _fetch(root, hf=None):
    path = root / "config" / "datasets.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"name": "test.jsonl", "hf": hf or {"repo": "org/toy", "type": "dataset", "file": "data/test.jsonl"}}
    path.write_text(yaml.safe_dump({"datasets": [{"id": "toy", "papers": [], "license": "CC0",
                                                  "real": {"files": [entry]}}]}))
    return fetch_real(get_dataset("toy", path), root)


def test_the_first_fetch_pins_the_sha256_and_the_commit(offline, tmp_path):
    _snapshot(tmp_path, FIRST, ROWS)
    (path,) = _fetch(tmp_path)
    assert path.read_bytes() == ROWS
    pin = read_lock(tmp_path / "data" / "sources.lock")[("toy", "test.jsonl")]
    assert pin.url == f"hf://datasets/org/toy@{FIRST}/data/test.jsonl"
    assert pin.sha256 == hashlib.sha256(ROWS).hexdigest() and pin.size == len(ROWS)
    provenance = json.loads((tmp_path / "data/raw/toy/provenance.json").read_text())["files"]["test.jsonl"]
    assert provenance["url"] == pin.url


def test_a_later_fetch_takes_the_pinned_commit_after_the_repository_moved_on(offline, tmp_path):
    _snapshot(tmp_path, FIRST, ROWS)
    (path,) = _fetch(tmp_path)
    _snapshot(tmp_path, SECOND, ROWS + b"{}\n")  # main now points to a newer commit with other bytes
    path.unlink()
    _fetch(tmp_path)
    assert path.read_bytes() == ROWS
    assert read_lock(tmp_path / "data" / "sources.lock")[("toy", "test.jsonl")].url.count(FIRST) == 1


def test_changed_bytes_at_the_pinned_commit_fail_with_both_digests_and_keep_nothing(offline, tmp_path):
    cached = _snapshot(tmp_path, FIRST, ROWS)
    (path,) = _fetch(tmp_path)
    path.unlink()
    tampered = ROWS[:-2] + b"!\n"
    cached.write_bytes(tampered)
    with pytest.raises(UserError) as error:
        _fetch(tmp_path)
    assert hashlib.sha256(ROWS).hexdigest() in str(error.value)
    assert hashlib.sha256(tampered).hexdigest() in str(error.value)
    assert not path.exists()


def test_a_missing_file_fails_clearly_and_keeps_nothing(offline, tmp_path):
    _snapshot(tmp_path, FIRST, ROWS)
    with pytest.raises(UserError, match="download of hf://datasets/org/toy/data/missing.jsonl failed"):
        _fetch(tmp_path, {"repo": "org/toy", "type": "dataset", "file": "data/missing.jsonl"})
    assert not (tmp_path / "data" / "raw" / "toy" / "test.jsonl").exists()


def test_the_token_is_read_from_the_environment_and_reaches_no_file(offline, tmp_path, monkeypatch):
    secret = "hf_neverWrittenAnywhere123"
    monkeypatch.setenv("HF_TOKEN", secret)
    _snapshot(tmp_path, FIRST, ROWS)
    _fetch(tmp_path)
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert not leaked


def test_a_file_is_a_url_or_a_hub_file(tmp_path):
    path = tmp_path / "config" / "datasets.yaml"
    path.parent.mkdir(parents=True)
    both = {"name": "x", "url": "https://example.invalid/x", "hf": {"repo": "o/n", "type": "dataset", "file": "x"}}
    path.write_text(yaml.safe_dump({"datasets": [{"id": "toy", "real": {"files": [both]}}]}))
    with pytest.raises(UserError, match="either url or hf"):
        get_dataset("toy", path)
    bad_type = {"name": "x", "hf": {"repo": "o/n", "type": "space", "file": "x"}}
    path.write_text(yaml.safe_dump({"datasets": [{"id": "toy", "real": {"files": [bad_type]}}]}))
    with pytest.raises(UserError, match="hf needs repo"):
        get_dataset("toy", path)

"""plant stages: bad input is refused with a clear error and leaves no output."""

from __future__ import annotations

import numpy as np
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.plant import stages


def test_a_truncated_state_cache_is_a_clear_error(tmp_path):
    bad = tmp_path / "minilm.npz"
    np.savez(bad, ids=np.zeros((2, 3)))  # no mask/states/vocab/tokens
    with pytest.raises(UserError, match="plant_cache"):
        stages._read_states(bad)
    bad.write_bytes(b"not a zip")
    with pytest.raises(UserError, match="minilm.npz"):
        stages._read_states(bad)


def test_a_broken_dataset_file_is_a_clear_error(tmp_path):
    path = tmp_path / "dataset.json"
    path.write_text("{truncated")
    with pytest.raises(UserError, match="dataset.json"):
        stages._read_dataset(path)


def test_real_data_is_refused_and_nothing_is_written(tmp_path):
    out = tmp_path / "dataset.json"
    ctx = StageContext("plant", OmegaConf.create({"data": "real"}), [tmp_path / "provenance.json"], [out])
    with pytest.raises(UserError, match="not wired"):
        stages.prepare(ctx)
    assert not out.exists()


def test_an_unknown_experiment_is_refused(tmp_path):
    ctx = StageContext("plant", OmegaConf.create({"data": "embedded", "experiment": "bogus"}),
                       [tmp_path / "d.json", tmp_path / "minilm.npz"], [tmp_path / "out.csv"], seed=0)
    with pytest.raises(UserError, match="experiment=main"):
        stages.run(ctx)
    assert not (tmp_path / "out.csv").exists()


def test_a_run_keeps_freed_memory_before_it_checks_or_loads_anything(tmp_path, monkeypatch):
    from neurips26.common.models import allocator

    calls = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append("mallopt") or True)
    ctx = StageContext("plant", OmegaConf.create({"data": "embedded", "experiment": "bogus"}),
                       [tmp_path / "d.json", tmp_path / "minilm.npz"], [tmp_path / "out.csv"], seed=0)
    with pytest.raises(UserError, match="experiment=main"):
        stages.run(ctx)
    assert calls == ["mallopt"]


def test_the_main_run_copying_the_tfidf_jobs_row_writes_the_same_file_as_computing_it(tmp_path):
    import json

    from neurips26.common.pipeline.artifacts import write_npz
    from neurips26.papers.plant import data

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    docs = [{"pmid": str(i), "text": " ".join(rng.choice(words, 8)), "mesh": ["A", "B", "C", "D", "E", "F"][: 2 + i % 5]}
            for i in range(24)]
    (tmp_path / "d.json").write_text(json.dumps(data.build(docs, 24, (0.5, 0.25), 5, 0)))
    n, T, V = 24, 4, 6
    write_npz(tmp_path / "minilm.npz", {
        "ids": rng.integers(0, V, (n, T)).astype(np.int32), "mask": np.ones((n, T), dtype=bool),
        "states": rng.normal(size=(n, T, 3)).astype(np.float16), "vocab": np.array(V),
        "tokens": np.array([str(i) for i in range(V)])})
    cfg = OmegaConf.create({
        "data": "embedded", "experiment": "main",
        "l2r": {"factors": 4, "sigma": 0.5, "ndcg_k": 2, "lr": 0.05, "weight_decay": 0.0, "list_relevant": 2,
                "list_random": 2, "steps": 2},
        "inattention_k": 2, "decoder": {"hidden": 4, "lr": 0.05, "batch": 4, "max_epochs": 2, "stopping": "fixed",
                                        "threshold": "laat"},
        "thresholds": [0.1, 0.3, 0.5], "tfidf": {"enabled": True, "C": 10.0, "max_features": 50},
        "fractions": [1.0], "ablations": [], "restarts": 1, "backbones": {"minilm": {}}})
    d, s = tmp_path / "d.json", tmp_path / "minilm.npz"
    stages.tfidf(StageContext("plant", cfg, [d], [tmp_path / "tfidf.csv"]))
    outs = {}
    for name, inputs in (("inline", [d, s]), ("copied", [d, s, tmp_path / "tfidf.csv"])):
        out = [tmp_path / f"{name}.csv", tmp_path / f"{name}_attention.csv"]
        stages.run(StageContext("plant", cfg, inputs, out, seed=2))
        outs[name] = out[0].read_text()
    assert "tfidf_lr" in outs["copied"] and outs["copied"] == outs["inline"]
    with pytest.raises(UserError, match="experiment=main"):
        stages.run(StageContext("plant", OmegaConf.merge(cfg, {"experiment": "fraction"}),
                                [d, s, tmp_path / "tfidf.csv"], [tmp_path / "f.csv"], seed=2))
    (tmp_path / "bad.csv").write_text("")
    with pytest.raises(UserError, match="TF-IDF"):
        stages.run(StageContext("plant", cfg, [d, s, tmp_path / "bad.csv"], [tmp_path / "x.csv", tmp_path / "y.csv"],
                                seed=2))


def test_uncompressed_state_cache_reads_back_the_same_arrays_and_is_reproducible(tmp_path):
    import zipfile

    from neurips26.common.pipeline.artifacts import write_npz

    arrays = {"states": np.random.default_rng(0).normal(size=(5, 4, 3)).astype(np.float16), "vocab": np.array([7])}
    write_npz(tmp_path / "a.npz", arrays, compress=False)
    write_npz(tmp_path / "b.npz", arrays, compress=False)
    write_npz(tmp_path / "c.npz", arrays)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    with zipfile.ZipFile(tmp_path / "a.npz") as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}
    with zipfile.ZipFile(tmp_path / "c.npz") as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}
    with np.load(tmp_path / "a.npz") as a, np.load(tmp_path / "c.npz") as c:
        for k, v in arrays.items():
            assert np.array_equal(a[k], v) and np.array_equal(c[k], v)

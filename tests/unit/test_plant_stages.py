"""plant stages: bad input is refused with a clear error and leaves no output."""

from __future__ import annotations

import numpy as np
import pytest
from omegaconf import OmegaConf

from neurips26.common.errors import UserError
from neurips26.common.stage import StageContext
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

"""Stage plumbing: unsupported data mode fails clearly, runs are byte-reproducible per seed, tables build from runs."""

from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.mec_mmd import experiments, losses, tables
from neurips26.papers.mec_mmd.stages import STAGES

TINY = {
    "bias": {"N": 60, "audit_sizes": [10], "datasets": 1, "replicates": 5, "model_samples": 20, "rc_replicates": 1,
             "noise_levels": [0.0, 0.5]},
    "rate": {"N_grid": [40, 80], "replicates": 2, "noise_level": 0.5, "bandwidth": 1.0, "audit_fraction": 0.25},
    "estimation": {"N": 60, "audit_size": 15, "model_samples": 20, "replicates": 1, "iterations": 3, "noise_level": 0.5,
                   "true_mean": [0.5, -0.3], "true_log_sigma": -0.2},
    "testing": {"N": 30, "audit_size": 10, "tests": 2, "bootstrap": 9, "permutations": 9, "alpha": 0.05,
                "shift": [0.5, 0.0], "device1": {"gain": [1.0, 1.0], "offset": [0.0, 0.0], "noise": 0.25},
                "device2": {"gain": [1.2, 0.8], "offset": [0.3, -0.2], "noise": 0.5}},
}


@pytest.fixture
def cfg():
    base = OmegaConf.load(Path(__file__).parents[2] / "config" / "mec_mmd" / "config.yaml")
    base.pop("defaults")
    return OmegaConf.merge(base, {"scale_name": "tiny", **TINY})


def test_real_data_is_refused_with_a_clear_error(cfg, tmp_path):
    cfg.data = "real"
    with pytest.raises(UserError, match="not wired"):
        STAGES["run_bias"](StageContext("mec_mmd", cfg, [], [tmp_path / "x.csv"], 0))
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("stage", ["run_bias", "run_rate", "run_estimation", "run_testing"])
def test_runs_are_byte_identical_per_seed_and_differ_across_seeds(cfg, tmp_path, stage):
    paths = [tmp_path / f"{k}.csv" for k in ("a", "b", "c")]
    for path, seed in zip(paths, (3, 3, 4)):
        STAGES[stage](StageContext("mec_mmd", cfg, [], [path], seed))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_tables_from_runs(cfg):
    main = tables.table_main(experiments.run_bias(cfg, 0))
    assert set(main["estimator"]) == set(tables.BIAS_ESTIMATORS)
    assert (main.loc[main["estimator"] == "naive", "se_kind"] == "data").all()
    rate = tables.table_rate(experiments.run_rate(cfg, 0))
    assert rate.groupby("method")["slope"].nunique().eq(1).all()
    est = tables.table_estimation(experiments.run_estimation(cfg, 0))
    assert list(est["method"]) == list(losses.METHODS) and np.isfinite(est["rmse_theta"]).all()

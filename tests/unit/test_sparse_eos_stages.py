"""sparse_eos stage plumbing: clear errors on bad input (no partial output), per-seed determinism, tables and claims."""

import json

import pytest

from neurips26.common.config import compose
from neurips26.common.errors import UserError
from neurips26.common.stage import StageContext
from neurips26.papers.sparse_eos.stages import STAGES

SMALL = ["scale=tiny", "sphere.dims=[8]", "sphere.lc_dims=[8]", "sphere.r_sweep.d=8", "sphere.r_sweep.rs=[4]",
         "sphere.eta_sweep.d=8", "sphere.eta_sweep.etas=[0.5]", "gd.max_steps=30"]


@pytest.fixture
def cfg():
    return compose("sparse_eos", SMALL)


def test_real_data_is_refused_with_a_clear_error(cfg, tmp_path):
    cfg.data = "real"
    with pytest.raises(UserError, match="not wired"):
        STAGES["run_sphere"](StageContext("sparse_eos", cfg, [], [tmp_path / "x.csv"], 0))
    assert not (tmp_path / "x.csv").exists()


def test_wrong_provenance_is_named(cfg, tmp_path):
    fake = tmp_path / "fashion_mnist" / "provenance.json"
    fake.parent.mkdir()
    fake.write_text(json.dumps({"dataset": "digits"}))
    with pytest.raises(UserError, match="dofp_lut_skimage"):
        STAGES["run_images"](StageContext("sparse_eos", cfg, [fake, fake], [tmp_path / "x.csv"], 0))
    with pytest.raises(UserError, match="needs --input"):
        STAGES["run_geometry"](StageContext("sparse_eos", cfg, [fake], [tmp_path / "x.csv"], 0))
    assert not (tmp_path / "x.csv").exists()


def test_sphere_runs_are_byte_identical_per_seed(cfg, tmp_path):
    paths = [tmp_path / f"{k}.csv" for k in ("a", "b", "c")]
    for path, seed in zip(paths, (7, 7, 8)):
        STAGES["run_sphere"](StageContext("sparse_eos", cfg, [], [path], seed))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()
    main = tmp_path / "main.csv"
    STAGES["table_main"](StageContext("sparse_eos", cfg, paths[:1] + paths[2:], [main]))
    text = main.read_text()
    assert "gap_sd" in text and "constraint_holds" in text


def test_unknown_image_variant_is_refused():
    from neurips26.papers.sparse_eos.data import variant

    with pytest.raises(UserError, match="unknown image variant"):
        variant(None, "shuffled", None)


def test_config_grid_is_consistent():
    cfg = compose("sparse_eos", [])
    assert cfg.sphere.r < min(cfg.sphere.lc_dims) and set(cfg.sphere.lc_dims) <= set(cfg.sphere.dims)
    assert all(r <= cfg.sphere.r_sweep.d for r in cfg.sphere.r_sweep.rs)
    assert cfg.sphere.eta in cfg.sphere.eta_sweep.etas

"""The parse-time settings view reads like the DictConfig it replaces, and refuses interpolations."""

import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.config import scale_config
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.settings import Settings

DATA = {"grid": {"cnn": {"etas": [0.02, 0.04], "replicates": 2}}, "tasks": {"names": ["a", "b"]}, "flag": False,
        "alpha": 0.4, "ref": "${alpha}", "nested": [{"k": 1}]}


def test_reads_like_a_dictconfig():
    view, reference = Settings(DATA), OmegaConf.create(DATA)
    assert list(view.grid.cnn.etas) == list(reference.grid.cnn.etas)
    assert view.grid["cnn"].get("replicates", 1) == reference.grid["cnn"].get("replicates", 1) == 2
    assert view.grid.cnn.get("missing", 7) == 7
    assert list(view.tasks) == list(reference.tasks) == ["names"]
    assert view.flag is False and view.nested[0].k == 1
    assert "grid" in view and len(view) == len(DATA)


def test_a_missing_key_and_an_interpolation_fail_clearly():
    view = Settings(DATA)
    with pytest.raises(AttributeError, match="grid.cnn.'lr'"):
        _ = view.grid.cnn.lr
    with pytest.raises(UserError, match="ref is an interpolation"):
        _ = view.ref
    assert view.to_dict()["ref"] == "${alpha}"


def test_the_view_cannot_change_the_config(repo_root):
    view = scale_config("mixup_minority", "default", root=repo_root)
    with pytest.raises(TypeError):
        view["lt"] = {}
    assert isinstance(view.lt.ratios, tuple)

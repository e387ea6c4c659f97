import pytest
from omegaconf import OmegaConf

from neurips26.common.config import compose, load_run_config, scale_config, validate_run_config
from neurips26.common.errors import UserError
from neurips26.common.registry import load_papers

GOOD = {"scale": "default", "data": "embedded", "seeds": [0, 1, 2], "papers": [], "device": "auto"}


def test_the_shipped_run_config_is_valid(repo_root):
    assert load_run_config(repo_root)["scale"] in ("tiny", "default", "paper")


@pytest.mark.parametrize(("key", "value", "message"), [
    ("scale", "huge", r"'scale'.*allowed values: tiny, default, paper"),
    ("data", "web", r"'data'.*allowed values: embedded, real"),
    ("device", "tpu", r"'device'.*allowed values: auto, cpu, cuda"),
    ("seeds", [], r"'seeds'"),
])
def test_a_bad_value_names_the_key_and_what_is_allowed(repo_root, key, value, message):
    with pytest.raises(UserError, match=message):
        validate_run_config({**GOOD, key: value}, root=repo_root)


def test_an_unknown_key_is_refused(repo_root):
    with pytest.raises(UserError, match="scael"):
        validate_run_config({**GOOD, "scael": "tiny"}, root=repo_root)


def test_compose_applies_scale_and_overrides(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    tiny = compose("mec_mmd", ["scale=tiny", "seeds=[4,5]"])
    assert tiny.scale_name == "tiny" and list(tiny.seeds) == [4, 5]
    assert compose("mec_mmd", []).scale_name == "default"
    with pytest.raises(UserError, match="cannot apply overrides"):
        compose("mec_mmd", ["scale=huge"])
    with pytest.raises(UserError, match="'device'"):
        compose("mec_mmd", ["device=tpu"])


@pytest.mark.parametrize("paper_id", [p.id for p in load_papers() if p.implemented])
def test_the_parse_time_composition_equals_hydras_for_every_scale(repo_root, paper_id):
    for scale in ("tiny", "default", "paper"):
        fast = scale_config(paper_id, scale, root=repo_root).to_dict()
        hydra = OmegaConf.to_container(compose(paper_id, [f"scale={scale}"], root=repo_root))
        assert fast == hydra, (paper_id, scale)


def test_the_parse_time_composition_names_a_missing_scale(repo_root):
    with pytest.raises(UserError, match="no scale 'huge'"):
        scale_config("mec_mmd", "huge", root=repo_root)

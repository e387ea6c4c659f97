import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.config import compose, load_run_config, scale_config, validate_run_config
from neurips26.common.pipeline.errors import UserError

GOOD = {"scale": "default", "data": "embedded", "seeds": [0, 1, 2], "papers": [], "device": "auto"}


def test_the_shipped_run_config_is_valid(repo_root):
    assert load_run_config(repo_root)["scale"] in ("tiny", "default", "paper")


@pytest.mark.parametrize(("key", "value", "message"), [
    ("scale", "huge", r"'scale'.*allowed values: tiny, default, long, paper"),
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


def test_the_parse_time_composition_names_a_missing_scale(repo_root):
    with pytest.raises(UserError, match="no scale 'huge'"):
        scale_config("mec_mmd", "huge", root=repo_root)


def test_the_parse_time_yaml_dialect_is_omegaconfs(tmp_path):
    """The parse-time loader writes OmegaConf's YAML dialect out instead of importing omegaconf: same implicit
    resolvers as omegaconf's own loader, and the same values on the cases where the dialect differs from PyYAML's."""
    from omegaconf._utils import get_yaml_loader

    from neurips26.common.pipeline.config import _FastYamlLoader, _load_yaml

    def resolvers(loader):
        return {key: [(tag, rx.pattern, rx.flags) for tag, rx in value]
                for key, value in loader.yaml_implicit_resolvers.items()}

    assert resolvers(_FastYamlLoader) == resolvers(get_yaml_loader())
    path = tmp_path / "dialect.yaml"
    path.write_text("lr: 1e-3\nbig: 2E+5\nday: 2026-12-02\nratio: .5\nflag: yes\nn: 0x1f\ninf: .inf\nname: 1_000.5\n")
    assert _load_yaml(path) == OmegaConf.to_container(OmegaConf.load(path))
    path.write_text("a: 1\na: 2\n")
    with pytest.raises(Exception, match="duplicate key"):
        _load_yaml(path)

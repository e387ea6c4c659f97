"""Every paper x scale composes to what its files say (docs/configuration.md): the defaults list is `_self_` then
`scale`, so a scale file's value always wins over the base; tiny and paper only change keys that the default composition
has; the Snakefile's parse-time composition and the DVC stage's params see the same files and values as Hydra."""

from __future__ import annotations

from functools import cache

import pytest
import yaml
from omegaconf import OmegaConf

from neurips26.common.pipeline.config import _load_yaml, compose, scale_config
from neurips26.common.pipeline.registry import get_paper, load_papers

SCALES = ("tiny", "default", "long", "paper")
# the one key only a long scale file sets: false while the paper's long design is not built (common/pipeline/claims.py)
LONG_ONLY = {"long_design"}
PAPERS = [p.id for p in load_papers()]


def _leaves(data: dict, prefix: str = ""):
    """(dotted path, value) of every leaf; an empty mapping is a leaf."""
    for key, value in data.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _get(data: dict, path: str):
    for key in path.split("."):
        if not isinstance(data, dict) or key not in data:
            raise KeyError(path)
        data = data[key]
    return data


@cache
def _hydra(repo_root, paper_id: str, scale: str) -> dict:
    """Hydra's compose as plain data (cached: read only, never changed by a test)."""
    return OmegaConf.to_container(compose(paper_id, [f"scale={scale}"], root=repo_root))


@pytest.mark.parametrize("paper_id", PAPERS)
def test_the_defaults_list_is_self_then_scale(repo_root, paper_id):
    defaults = _load_yaml(repo_root / "config" / paper_id / "config.yaml").get("defaults")
    assert defaults == ["_self_", {"scale": "default"}], (
        f"config/{paper_id}/config.yaml: defaults must be [_self_, scale: default] (docs/configuration.md)")


@pytest.mark.parametrize("paper_id", PAPERS)
def test_every_value_of_a_scale_file_wins_over_the_base(repo_root, paper_id):
    lost = []
    for scale in SCALES:
        composed = _hydra(repo_root, paper_id, scale)
        for path, value in _leaves(_load_yaml(repo_root / "config" / paper_id / "scale" / f"{scale}.yaml")):
            if path == "defaults":  # long.yaml's [default, _self_]: the scale it builds on, not a value
                continue
            if _get(composed, path) != value:
                lost.append(f"{scale}: {path} is {_get(composed, path)!r}, scale/{scale}.yaml says {value!r}")
    assert not lost, f"config/{paper_id}: scale settings lost:\n" + "\n".join(lost)


@pytest.mark.parametrize("paper_id", PAPERS)
def test_other_scales_set_only_keys_the_default_composition_has(repo_root, paper_id):
    """A key that only tiny, long or paper sets is read by no default run: a typo, or a value the code never reads."""
    default = _hydra(repo_root, paper_id, "default")
    unknown = []
    for scale in ("tiny", "long", "paper"):
        for path, _ in _leaves(_load_yaml(repo_root / "config" / paper_id / "scale" / f"{scale}.yaml")):
            if path == "defaults" or path in LONG_ONLY:
                continue
            try:
                _get(default, path)
            except KeyError:
                unknown.append(f"scale/{scale}.yaml: {path}")
    assert not unknown, f"config/{paper_id}: keys the default composition lacks:\n" + "\n".join(unknown)


@pytest.mark.parametrize("paper_id", PAPERS)
def test_no_composition_leaves_a_mandatory_value_unset(repo_root, paper_id):
    for scale in SCALES:
        missing = [path for path, value in _leaves(_hydra(repo_root, paper_id, scale)) if value == "???"]
        assert not missing, f"config/{paper_id} at scale {scale}: ??? left unset: {missing}"


@pytest.mark.parametrize("paper_id", PAPERS)
def test_the_snakefile_composition_equals_hydras(repo_root, paper_id):
    """workflow/rules/common.smk reads scale_config at parse time; the config stage writes Hydra's compose."""
    for scale in SCALES:
        assert scale_config(paper_id, scale, root=repo_root).to_dict() == _hydra(repo_root, paper_id, scale), scale


@pytest.mark.parametrize("paper_id", PAPERS)
def test_the_dvc_stage_params_are_the_files_hydra_composes(repo_root, paper_id):
    """dvc.yaml's stage for the paper lists config.yaml and every scale file as params (whole files), so `dvc status`
    sees every file a composition can read. A planned paper has no stage (dvc_yaml.py writes implemented ones only)."""
    stages = yaml.safe_load((repo_root / "dvc.yaml").read_text())["stages"]
    if not get_paper(paper_id, repo_root).implemented:
        assert paper_id not in stages, f"planned {paper_id} has a DVC stage: run `make dvc-yaml`"
        return
    stage = stages[paper_id]
    files = {next(iter(entry)) for entry in stage["params"] if isinstance(entry, dict)} - {"config/config.yaml"}
    config_dir = repo_root / "config" / paper_id
    expected = {f"config/{paper_id}/config.yaml"} | {
        f"config/{paper_id}/scale/{path.name}" for path in (config_dir / "scale").glob("*.yaml")}
    assert files == expected
    assert {path.stem for path in (config_dir / "scale").glob("*.yaml")} == set(SCALES)

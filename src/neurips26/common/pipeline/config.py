"""Configuration: the run config (config/config.yaml, schema-validated) and each paper's Hydra tree (compose API)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:  # OmegaConf is imported where it is used: the Snakefile's parse needs none of it (~0.1 s)
    from omegaconf import DictConfig

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import repo_root
from neurips26.common.pipeline.settings import Settings


def _schema_path(root: Path) -> Path:
    return root / "workflow" / "schemas" / "config.schema.json"


def _schema(root: Path) -> dict:
    return json.loads(_schema_path(root).read_text())


def validate_run_config(cfg: dict, source: str = "config/config.yaml", root: Path | None = None) -> dict:
    """Raise UserError naming the bad key and what is allowed; return cfg unchanged when valid."""
    import jsonschema  # ~0.13 s; only the Snakefile's parse and the config stage validate

    schema = _schema(root or repo_root())
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(cfg))
    if error is None:
        return cfg
    key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    allowed = schema["properties"].get(str(error.absolute_path[0]) if error.absolute_path else "", {}).get("enum")
    hint = f"; allowed values: {', '.join(map(str, allowed))}" if allowed else ""
    raise UserError(f"{source}: config key '{key}': {error.message}{hint}")


def coerce_command_line(cfg: dict) -> dict:
    """`snakemake --config seeds=[0,1]` parses list items as strings (YAML BaseLoader); make digit strings ints again."""
    seeds = cfg.get("seeds")
    if isinstance(seeds, list):
        cfg["seeds"] = [int(s) if isinstance(s, str) and s.strip().lstrip("-").isdigit() else s for s in seeds]
    if cfg.get("papers") in ("", "[]"):
        cfg["papers"] = []
    robustness = cfg.get("robustness")
    if isinstance(robustness, dict):
        cfg["robustness"] = {k: int(v) if isinstance(v, str) and v.strip().isdigit() else v for k, v in robustness.items()}
    return cfg


def load_run_config(root: Path | None = None) -> dict:
    root = root or repo_root()
    return validate_run_config(yaml.safe_load((root / "config" / "config.yaml").read_text()), root=root)


def compose(paper_id: str, overrides: list[str], root: Path | None = None) -> DictConfig:
    """Compose config/<paper_id>/config.yaml with Hydra overrides (key=value, scale=tiny, seeds=[0,1])."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    config_dir = (root or repo_root()) / "config" / paper_id
    if not (config_dir / "config.yaml").is_file():
        raise UserError(f"no Hydra config for paper {paper_id!r}: {config_dir}/config.yaml is missing")
    try:
        with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
            cfg = hydra_compose(config_name="config", overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as exc:
        raise UserError(f"config/{paper_id}: cannot apply overrides {list(overrides)}: {exc}") from None
    _check_common_keys(cfg, f"config/{paper_id} with overrides {list(overrides)}")
    return cfg


class _FastYamlLoader(yaml.CSafeLoader if getattr(yaml, "__with_libyaml__", False) else yaml.SafeLoader):
    """OmegaConf.load's YAML dialect (YAML 1.2 floats such as 1e-3, no timestamps, duplicate keys refused) on libyaml's C
    parser: the Snakefile reads every paper's config at parse time, and the pure-Python parser is most of that cost."""

    def construct_mapping(self, node, deep=False):
        keys = set()
        for key_node, _ in node.value:
            if key_node.tag != yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG:
                continue
            if key_node.value in keys:
                raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark,
                                                        f"found duplicate key {key_node.value}", key_node.start_mark)
            keys.add(key_node.value)
        return super().construct_mapping(node, deep=deep)


# OmegaConf's YAML 1.2 float (1e-3 is a float, not a string), written out here because importing omegaconf to copy it
# costs ~0.1 s of every parse; tests/unit/test_config.py checks that the resolvers equal omegaconf's get_yaml_loader().
_YAML12_FLOAT = re.compile(
    """^(?:
         [-+]?[0-9]+(?:_[0-9]+)*\\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+)
        |\\.[0-9]+(?:_[0-9]+)*(?:[eE][-+][0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?::[0-5]?[0-9])+\\.[0-9_]*
        |[-+]?\\.(?:inf|Inf|INF)
        |\\.(?:nan|NaN|NAN))$""",
    re.X,
)


def _set_omegaconf_dialect(loader: type) -> None:
    """OmegaConf's changes to PyYAML's safe loader: the YAML 1.2 float above, and no timestamps (dates stay strings)."""
    loader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))
    loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in loader.yaml_implicit_resolvers.items()
    }


_set_omegaconf_dialect(_FastYamlLoader)


def _load_yaml(path: Path):
    """Plain data from a YAML file, as OmegaConf.load would read it (an empty file is an empty mapping)."""
    with open(path, encoding="utf-8") as handle:
        data = yaml.load(handle, Loader=_FastYamlLoader)
    return {} if data is None else data


def _merge(base: dict, override: dict) -> dict:
    """OmegaConf.merge for plain YAML data: mappings merge key by key, anything else (lists included) is replaced."""
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def scale_config(paper_id: str, scale: str, root: Path | None = None) -> Settings:
    """config/<paper_id>/config.yaml at `scale`, without Hydra: the Snakefile composes every paper at parse time, and a
    Hydra compose costs ~0.3 s a paper (19 papers would make every dry run slow). Supports exactly the layout the papers
    use: a defaults list of `_self_` then `scale: <name>` (scale files are `@package _global_`), merged in list order, so
    a scale file's value wins (docs/configuration.md).
    The YAML is read with libyaml and merged as plain data, returned as a read-only view (common/pipeline/settings.py;
    OmegaConf.load + merge per file cost ~20 ms a paper, OmegaConf.create of the result ~15 ms).
    tests/unit/test_config_scales.py checks that it equals Hydra's compose for every paper and scale."""
    config_dir = (root or repo_root()) / "config" / paper_id
    primary = _load_yaml(config_dir / "config.yaml")
    merged: dict = {}
    for entry in primary.pop("defaults", ["_self_"]):
        if entry == "_self_":
            _merge(merged, primary)
        elif isinstance(entry, dict) and list(entry.keys()) == ["scale"]:
            _merge(merged, _scale_file(config_dir, paper_id, scale))
        else:
            raise UserError(f"config/{paper_id}/config.yaml: defaults entry {entry} is not `_self_` or `scale: ...`")
    return Settings(merged)


def _scale_file(config_dir: Path, paper_id: str, scale: str) -> dict:
    """One scale file, merged onto the scale it names first when it starts with `defaults: [<scale>, _self_]` (a
    `long` that keeps default's design and changes only some budgets), as Hydra reads that list."""
    scale_file = config_dir / "scale" / f"{scale}.yaml"
    if not scale_file.is_file():
        raise UserError(f"config/{paper_id}: no scale {scale!r} ({scale_file} is missing)")
    own = _load_yaml(scale_file)
    defaults = own.pop("defaults", ["_self_"])
    if len(defaults) > 2 or defaults[-1] != "_self_" or not all(isinstance(d, str) for d in defaults):
        raise UserError(f"{scale_file}: defaults must be [_self_] or [<scale>, _self_], not {defaults}")
    merged: dict = _scale_file(config_dir, paper_id, defaults[0]) if len(defaults) == 2 else {}
    _merge(merged, own)
    return merged


def _check_common_keys(cfg: DictConfig, source: str) -> None:
    from omegaconf import OmegaConf

    common = {
        "scale": cfg.get("scale_name"),
        "data": cfg.get("data"),
        "seeds": OmegaConf.to_container(cfg.seeds) if "seeds" in cfg else None,
        "papers": [],
        "device": cfg.get("device"),
    }
    validate_run_config(common, source=source)


def load_resolved(path: str | Path, overrides: list[str] = ()) -> DictConfig:
    """A resolved config written by the `config` stage, with optional dotlist overrides on top."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"resolved config {path} does not exist: run the paper's config stage first")
    from omegaconf import OmegaConf

    cfg = OmegaConf.load(path)
    if overrides:
        cfg = OmegaConf.merge(cfg, OmegaConf.from_dotlist(list(overrides)))
    _check_common_keys(cfg, str(path))
    return cfg


def to_yaml(cfg: DictConfig) -> str:
    from omegaconf import OmegaConf

    return OmegaConf.to_yaml(cfg, resolve=True, sort_keys=False)

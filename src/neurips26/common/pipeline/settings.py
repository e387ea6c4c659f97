"""A read-only view of plain config data with attribute access, for the Snakefile's parse time.

The rule files read each paper's scale settings (`CYTO_SCALE.sweeps.capacity`, `PLANT.backbones`) to decide which jobs
exist. Wrapping the merged YAML in an OmegaConf DictConfig for that cost about 15 ms a paper, paid by every dry run and
every cluster job that re-reads the Snakefile; this view costs nothing until a key is read. It reads like a DictConfig
(keys as attributes, `.get`, iteration over keys, lists as sequences) and refuses what only OmegaConf can do: a value
that is an interpolation (`${...}`) raises, so a grid never silently holds the unresolved string.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from neurips26.common.pipeline.errors import UserError


class Settings(Mapping):
    __slots__ = ("_data", "_path")

    def __init__(self, data: dict, path: str = ""):
        self._data = data
        self._path = path

    def __getitem__(self, key: str) -> Any:
        return _view(self._data[key], f"{self._path}{key}")

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"settings have no key {self._path}{key!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Settings({self._data!r})"

    def to_dict(self) -> dict:
        """The underlying data (interpolations left as written), as OmegaConf.to_container(cfg) gives it."""
        return self._data


def _view(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return Settings(value, f"{path}.")
    if isinstance(value, list):
        return tuple(_view(item, f"{path}[{i}]") for i, item in enumerate(value))
    if isinstance(value, str) and "${" in value:
        raise UserError(f"config key {path} is an interpolation ({value}); parse-time settings do not resolve "
                        "interpolations: read it in a stage, from the resolved config")
    return value

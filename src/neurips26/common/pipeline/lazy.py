"""Paper modules loaded on first use: each job (one stage) then imports only what that stage needs. A stages.py that
imports all of its paper's modules eagerly makes every table, figure and claims job pay for torch, scipy.stats and
matplotlib (seconds of start-up a job, most of a paper's tiny run).

    data, experiments, figures = lazy_modules("neurips26.papers.wd_eos", "data", "experiments", "figures")

Seeding is unchanged: a module loaded after `seed_everything` that brings torch in gets torch seeded with the same seed,
exactly as an eager import followed by `seed_everything` would have (common/pipeline/seeding.py)."""

from __future__ import annotations

import importlib
import types


class LazyModule(types.ModuleType):
    """Stands for module `name`; the first attribute read imports it (later reads go straight to the real module)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lazy_module"] = None

    def _load(self) -> types.ModuleType:
        module = self.__dict__["_lazy_module"]
        if module is None:
            from neurips26.common.pipeline.seeding import seed_late_imports

            module = importlib.import_module(self.__name__)
            seed_late_imports()
            self.__dict__["_lazy_module"] = module
        return module

    def __getattr__(self, attr: str):
        return getattr(self._load(), attr)


def lazy_modules(package: str, *names: str) -> tuple[LazyModule, ...] | LazyModule:
    modules = tuple(LazyModule(f"{package}.{name}") for name in names)
    return modules[0] if len(modules) == 1 else modules


def deferred(module: LazyModule, name: str):
    """`module.name`, looked up when called: for the STAGES table, which names every stage's function at import time."""

    def call(*args, **kwargs):
        return getattr(module, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call

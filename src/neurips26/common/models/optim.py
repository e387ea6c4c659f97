"""torch.optim's optimizers, without the torch._dynamo import their first use costs.

torch.optim wraps each built-in optimizer's `step` in `torch._dynamo.graph_break()` calls and `add_param_group`,
`zero_grad`, `state_dict` and `load_state_dict` in `torch._disable_dynamo`; the first call of either imports
torch._dynamo, 2 to 2.5 s of CPU in every training job (as much as `import torch`). Outside torch.compile those wrappers
only set the grad mode, and nothing in this project compiles, so `eager(cls)` calls the undecorated methods
(`__wrapped__`) under the same grad mode: the updates are bit for bit torch.optim's (tests/unit/test_optim.py).
"""

from __future__ import annotations

import torch
from torch.optim import Optimizer

_DISABLED = ("add_param_group", "zero_grad", "state_dict", "load_state_dict")


def _undecorated(method):
    return getattr(method, "__wrapped__", None)


def _plain(raw):
    """A method that calls `raw` (an undecorated torch.optim method) directly."""

    def method(self, *args, **kwargs):
        return raw(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = raw.__name__
    method.__doc__ = raw.__doc__
    return method


def _grad_mode_step(raw_step):
    """`step` as torch's `_use_grad_for_differentiable` runs it, minus its `torch._dynamo.graph_break()` calls."""

    def step(self, closure=None):
        with torch.set_grad_enabled(self.defaults["differentiable"]):
            return raw_step(self, closure)

    step.__doc__ = raw_step.__doc__
    return step


def eager(cls: type[Optimizer]) -> type[Optimizer]:
    """`cls` with the dynamo wrappers bypassed; `cls` itself where this torch does not wrap as expected."""
    raw = {name: _undecorated(getattr(Optimizer, name)) for name in _DISABLED}
    if None in raw.values():
        return cls
    methods = {name: _plain(f) for name, f in raw.items()}
    step_code = getattr(cls.step, "__code__", None)
    if step_code is not None and step_code.co_name == "_use_grad":  # the graph-breaking wrapper of built-in steps
        if _undecorated(cls.step) is None:
            return cls
        methods["step"] = _grad_mode_step(_undecorated(cls.step))
    return type(cls.__name__, (cls,), {"__module__": __name__, "__doc__": cls.__doc__, **methods})


Adam = eager(torch.optim.Adam)
AdamW = eager(torch.optim.AdamW)
SGD = eager(torch.optim.SGD)
LBFGS = eager(torch.optim.LBFGS)

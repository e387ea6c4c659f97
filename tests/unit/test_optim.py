"""common/models/optim.py: torch.optim's optimizers without the torch._dynamo import, bit for bit the same updates."""

import subprocess
import sys

import pytest
import torch

from neurips26.common.models import optim


def _train(optimizer_class, scheduled: bool, **options) -> torch.Tensor:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(12, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    opt = optimizer_class(model.parameters(), **options)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 10) if scheduled else None
    x, y = torch.randn(32, 12), torch.randint(0, 3, (32,))
    for _ in range(15):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if scheduler is not None:
            scheduler.step()
    opt.load_state_dict(opt.state_dict())
    return torch.cat([p.detach().flatten() for p in model.parameters()])


@pytest.mark.parametrize(("name", "options"), [
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.01, "foreach": True}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.01}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.01, "fused": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.001}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
])
@pytest.mark.parametrize("scheduled", [False, True])
def test_each_optimizer_updates_bit_for_bit_as_torch_optim(name, options, scheduled):
    ours = _train(getattr(optim, name), scheduled, **options)
    reference = _train(getattr(torch.optim, name), scheduled, **options)
    assert torch.equal(ours, reference)
    ours_class, torch_class = getattr(optim, name), getattr(torch.optim, name)
    assert issubclass(ours_class, torch_class) and ours_class is not torch_class


def test_lbfgs_matches_torch_optim():
    def solve(optimizer_class):
        theta = torch.zeros(3, requires_grad=True)
        opt = optimizer_class([theta], lr=1.0, max_iter=20, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((theta - torch.tensor([1.0, -2.0, 0.5])) ** 2).sum() + theta.pow(4).sum()
            loss.backward()
            return loss

        opt.step(closure)
        return theta.detach()

    assert torch.equal(solve(optim.LBFGS), solve(torch.optim.LBFGS))


@pytest.mark.slow
def test_training_with_them_never_imports_torch_dynamo():
    """The point of the module: a job that trains with these optimizers (and a scheduler, gradient clipping and a state
    round trip) does not pay torch._dynamo's import. Run in a fresh interpreter, since this one may have imported it."""
    script = """
import sys, torch
from neurips26.common.models import optim
model = torch.nn.Linear(4, 2)
for cls, options in ((optim.Adam, {}), (optim.AdamW, {}), (optim.SGD, {"momentum": 0.9})):
    opt = cls(model.parameters(), lr=0.1, **options)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, 2)
    model(torch.ones(3, 4)).sum().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step(); scheduler.step(); opt.zero_grad(); opt.load_state_dict(opt.state_dict())
theta = torch.zeros(2, requires_grad=True)
lbfgs = optim.LBFGS([theta], max_iter=3)
def closure():
    lbfgs.zero_grad(); loss = (theta - 1).pow(2).sum(); loss.backward(); return loss
lbfgs.step(closure)
print("torch._dynamo" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


@pytest.mark.slow
def test_stock_torch_optim_does_import_it():
    """The control: without the bypass, the same training imports torch._dynamo (else the test above proves nothing)."""
    script = """
import sys, torch
model = torch.nn.Linear(4, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.ones(3, 4)).sum().backward()
opt.step()
print("torch._dynamo" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True", out.stdout + out.stderr

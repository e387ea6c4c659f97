"""Full-batch gradient descent on L = 1/(2n) sum (f(x_i) - y_i)^2 with a stated convergence rule, then the sharpness
(top Hessian eigenvalue, Lanczos on Hessian-vector products from common.hessian) checked against 2/eta.

Convergence rule: every `check_every` steps the training loss is recorded; GD stops when the loss is below `loss_floor`
(interpolation), or, after `min_steps` (past the slow start from the small init), when the loss averaged over the
last `window` steps fell by less than `rel_tol` relative to the window before (a plateau; averaging makes an
oscillating EoS run count by its mean), or at `max_steps` (then converged = False and the run is reported as such)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from neurips26.common.hessian import top_eigenpairs


@dataclass
class Fit:
    steps: int
    converged: bool
    train_loss: float
    sharpness: float
    diverged: bool


def mse(net, x, y) -> torch.Tensor:
    return 0.5 * ((net(x) - y) ** 2).mean()


def train(net, x: torch.Tensor, y: torch.Tensor, eta: float, rule, wd: float = 0.0,
          generator: torch.Generator | None = None) -> Fit:
    params = list(net.parameters())
    history: list[float] = []
    per_window = max(1, int(rule.window) // int(rule.check_every))
    step, converged, diverged = 0, False, False
    while step < int(rule.max_steps):
        loss = mse(net, x, y)
        value = loss.item()
        if not np.isfinite(value) or value > 1e6:
            diverged = True
            break
        if step % int(rule.check_every) == 0:
            history.append(value)
            if value < float(rule.loss_floor):
                converged = True
                break
            if len(history) >= 2 * per_window and step >= int(rule.min_steps):
                recent, before = np.mean(history[-per_window:]), np.mean(history[-2 * per_window:-per_window])
                if before - recent < float(rule.rel_tol) * before:
                    converged = True
                    break
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p.add_(g + wd * p, alpha=-eta)
        step += 1
    final = mse(net, x, y).item() if not diverged else float("nan")
    sharp = float("nan")
    if not diverged:
        values, _ = top_eigenpairs(lambda: mse(net, x, y), params, k=1, iters=int(rule.lanczos_iters),
                                   generator=generator)
        sharp = float(values[0])
    return Fit(step, converged, final, sharp, diverged)

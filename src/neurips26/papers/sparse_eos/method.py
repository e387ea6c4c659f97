"""Full-batch gradient descent on L = 1/(2n) sum (f(x_i) - y_i)^2 with a stated convergence rule, then the sharpness
(top Hessian eigenvalue, Lanczos on Hessian-vector products from common.hessian) checked against 2/eta.

Convergence rule: every `check_every` steps the training loss is recorded; GD stops when the training MSE reaches the
target `target_mse` (the matched-fit rule: `gd.target_fraction` x the label-noise variance, set by the caller), or,
after `min_steps` (past the slow start from the small init), when the loss averaged over the last `window` steps fell
by less than `rel_tol` relative to the window before (a plateau above the target; averaging makes an oscillating EoS
run count by its mean; a plateau whose mean is not below the initial loss is GD oscillating without descent and is
flagged "no_descent", not converged), or at `max_steps` (then converged = False and the run is flagged and left out
of the claims).
The stability bound applies to every iterate below the EoS, not only to minima, so the target stop is within its
scope; it makes the gap comparable across nets that memorise at very different speeds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from neurips26.common.models.hessian import top_eigenpairs


@dataclass
class Fit:
    steps: int
    converged: bool
    stop: str
    train_loss: float
    sharpness: float
    diverged: bool


def mse(net, x, y) -> torch.Tensor:
    return 0.5 * ((net(x) - y) ** 2).mean()


def train(net, x: torch.Tensor, y: torch.Tensor, eta: float, rule, wd: float = 0.0,
          generator: torch.Generator | None = None, target_mse: float = 0.0) -> Fit:
    params = list(net.parameters())
    patches = net.patches(x).detach()                       # fixed inputs: gather the patches once
    history: list[float] = []
    per_window = max(1, int(rule.window) // int(rule.check_every))
    step, converged, diverged, stop = 0, False, False, "cap"
    with torch.no_grad():
        while step < int(rule.max_steps):
            value, grads = net.loss_and_grads(patches, y)   # hand-written gradient (tested against autograd)
            if not np.isfinite(value) or value > 1e6:
                diverged, stop = True, "diverged"
                break
            if step % int(rule.check_every) == 0:
                history.append(value)
                if 2.0 * value <= target_mse or value < float(rule.loss_floor):
                    converged, stop = True, "target"
                    break
                if len(history) >= 2 * per_window and step >= int(rule.min_steps):
                    recent, before = np.mean(history[-per_window:]), np.mean(history[-2 * per_window:-per_window])
                    if before - recent < float(rule.rel_tol) * before:
                        # a plateau above the initial loss is GD oscillating without descent (past the EoS), not a fit
                        converged = bool(recent < history[0])
                        stop = "plateau" if converged else "no_descent"
                        break
            for p, g in zip(params, grads):
                p.add_(g + wd * p, alpha=-eta)
            step += 1
    final = mse(net, x, y).item() if not diverged else float("nan")
    sharp = float("nan")
    if not diverged:
        values, _ = top_eigenpairs(lambda: mse(net, x, y), params, k=1, iters=int(rule.lanczos_iters),
                                   generator=generator)
        sharp = float(values[0])
    return Fit(step, converged, stop, final, sharp, diverged)

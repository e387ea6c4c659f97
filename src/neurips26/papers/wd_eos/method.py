"""The method under study: full-batch gradient descent with COUPLED weight decay (L2 in the gradient),
theta <- theta - eta (grad L(theta) + lambda theta), whose linear stability threshold for the top Hessian eigenvalue of
L is S < 2/eta - lambda (the Hessian of L + lambda/2 ||theta||^2 is H + lambda I)."""

from __future__ import annotations

import torch


@torch.no_grad()
def coupled_step(params: list[torch.Tensor], grads: list[torch.Tensor], eta: float, wd: float) -> None:
    for p, g in zip(params, grads):
        p.add_(g + wd * p, alpha=-eta)


def stability_threshold(eta: float, wd: float) -> float:
    """The sharpness S of L at which coupled GD on L + lambda/2 ||theta||^2 loses linear stability: 2/eta - lambda."""
    return 2.0 / eta - wd

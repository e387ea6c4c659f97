"""Baselines: lambda = 0 (plain GD, a point of the grid), DECOUPLED weight decay (shrink after the gradient step,
theta <- (1 - eta lambda)(theta - eta grad L), the AdamW-style order), and the trivial shifted threshold 2/eta - lambda
as a control line (method.stability_threshold)."""

from __future__ import annotations

import torch


@torch.no_grad()
def decoupled_step(params: list[torch.Tensor], grads: list[torch.Tensor], eta: float, wd: float) -> None:
    for p, g in zip(params, grads):
        p.add_(g, alpha=-eta).mul_(1.0 - eta * wd)


def decoupled_threshold(eta: float, wd: float) -> float:
    """Linear stability of the decoupled map: (1 - eta lambda)(1 - eta S) = -1, i.e.
    S = (2 - eta lambda) / (eta (1 - eta lambda))."""
    return (2.0 - eta * wd) / (eta * (1.0 - eta * wd))

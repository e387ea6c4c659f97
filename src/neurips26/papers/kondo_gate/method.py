"""Delight, the DG weights and the Kondo gate (selection + a backward pass on the kept samples only).

delight chi = A * (-log pi): advantage times surprisal, a forward-pass quantity. DG weights each policy-gradient term by
sigma(chi / eta). The Kondo gate keeps samples whose priority beats a compute price (or the top fraction rho), compacts
the batch to them and runs the backward pass on that compact batch alone, so skipped samples cost no backward compute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from neurips26.common.errors import UserError


def delight(advantage, logp):
    """chi = A * (-log pi) (works for NumPy arrays and torch tensors)."""
    return advantage * (-logp)


def dg_weights(advantage, logp, eta: float):
    """DG's per-sample weight sigma(chi / eta) * A (to be treated as a constant: stop-gradient)."""
    chi = delight(advantage, logp)
    if isinstance(chi, torch.Tensor):
        return torch.sigmoid(chi / eta) * advantage
    return advantage / (1.0 + np.exp(-chi / eta))


def kept_count(batch: int, keep_rate: float) -> int:
    """How many of `batch` samples a keep rate rho keeps: ceil(rho * B), at least one."""
    if not 0.0 < keep_rate <= 1.0:
        raise UserError(f"keep rate must lie in (0, 1], got {keep_rate}")
    return max(1, min(batch, math.ceil(keep_rate * batch - 1e-9)))


def select(priority: torch.Tensor, keep_rate: float | None = None, price: float | None = None) -> torch.Tensor:
    """Indices (ascending) of the kept samples: the top ceil(rho*B) priorities, or every priority above the price.

    Ties at the quantile are broken by the lower index (a stable sort), so the kept set is deterministic.
    """
    if (keep_rate is None) == (price is None):
        raise UserError("the gate needs exactly one of keep_rate and price")
    if price is not None:
        return torch.nonzero(priority > price).flatten()
    k = kept_count(priority.numel(), keep_rate)
    order = torch.sort(-priority, stable=True).indices
    return torch.sort(order[:k]).values


@dataclass
class StepCost:
    """What one update cost: samples that went through a backward pass, and its exact FLOPs (counted, not timed)."""

    backward_passes: int
    backward_flops: int
    forward_samples: int


def gated_update(policy, optimizer, inputs, actions, weights, kept, flops_per_sample: int, log_prob) -> StepCost:
    """Compact the batch to `kept`, forward it with gradients, and backpropagate -mean_kept(w * log pi) only.

    `log_prob(policy, inputs, actions)` returns per-sample log-probabilities. Nothing of the skipped samples enters the
    autograd graph, so their backward compute is exactly zero; an empty kept set skips the update altogether.
    """
    optimizer.zero_grad(set_to_none=True)
    n = int(kept.numel())
    if n == 0:
        return StepCost(0, 0, 0)
    logp = log_prob(policy, inputs[kept], actions[kept])
    loss = -(weights[kept].detach() * logp).mean()
    loss.backward()
    optimizer.step()
    return StepCost(n, n * flops_per_sample, n)


def backward_flops_per_sample(policy, inputs, actions, log_prob) -> int:
    """Exact backward FLOPs of one sample, counted by torch's FLOP counter on batches of 1 and 2 (checked linear)."""
    from torch.utils.flop_counter import FlopCounterMode

    counts = []
    for n in (1, 2):
        policy.zero_grad(set_to_none=True)
        loss = -log_prob(policy, inputs[:n], actions[:n]).mean()
        with FlopCounterMode(display=False) as counter:
            loss.backward()
        counts.append(counter.get_total_flops())
    policy.zero_grad(set_to_none=True)
    if counts[1] != 2 * counts[0]:
        raise RuntimeError(f"backward FLOPs are not linear in the batch: {counts}")
    return int(counts[0])

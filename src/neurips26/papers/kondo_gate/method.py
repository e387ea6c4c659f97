"""Delight, the DG weights and the Kondo gate (selection + a backward pass on the kept samples only).

delight chi = A * (-log pi): advantage times surprisal, a forward-pass quantity. DG weights each policy-gradient term by
sigma(chi / eta). The Kondo gate (arXiv 2603.20526) draws G ~ Bernoulli(sigma((chi - lambda) / eta)) per sample with a
compute price lambda (`bernoulli_gate`); its eta -> 0 limit is the hard threshold chi > lambda and the official code's
variant keeps the top fraction rho of the batch (`select`). The kept samples are compacted and backpropagated alone, so
skipped samples cost no backward compute (`gated_update`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from neurips26.common.pipeline.errors import UserError


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


def keep_probability(chi, price: float, eta: float):
    """The paper's gate probability sigma((chi - lambda) / eta); eta = 0 is its hard limit 1[chi > lambda]."""
    if eta < 0:
        raise UserError(f"gate temperature eta must be >= 0, got {eta}")
    if isinstance(chi, torch.Tensor):
        return (chi > price).to(chi.dtype) if eta == 0 else torch.sigmoid((chi - price) / eta)
    chi = np.asarray(chi, dtype=float)
    return (chi > price).astype(float) if eta == 0 else 0.5 * (1.0 + np.tanh((chi - price) / (2.0 * eta)))


def bernoulli_gate(chi: torch.Tensor, price: float, eta: float, generator: torch.Generator) -> torch.Tensor:
    """Indices (ascending) of the samples whose gate G ~ Bernoulli(sigma((chi - lambda) / eta)) opened.

    The uniforms come from `generator` (one per sample, drawn even at eta = 0 so every temperature sees one stream)."""
    uniform = torch.rand(chi.shape, generator=generator, dtype=torch.float64).to(chi.device)
    return torch.nonzero(uniform < keep_probability(chi.double(), price, eta)).flatten()


@dataclass
class StepCost:
    """What one update cost: samples that went through a backward pass, and its exact FLOPs (counted, not timed)."""

    backward_passes: int
    backward_flops: int
    forward_samples: int


def gated_update(policy, optimizer, inputs, actions, weights, kept, flops_per_sample: int, log_prob) -> StepCost:
    """Compact the batch to `kept`, forward it with gradients, and backpropagate -sum_kept(w * log pi) / B only.

    The sum over the kept samples is divided by the full batch size B, as the official code divides the gated loss by
    every valid token of the batch (egg `DelightSigmoidLoss`, and `loss_normalizer` of its compacted Kondo batch): the
    update is the masked full-batch update, so a gate that keeps fewer samples takes a smaller step.

    `log_prob(policy, inputs, actions)` returns per-sample log-probabilities. Nothing of the skipped samples enters the
    autograd graph, so their backward compute is exactly zero; an empty kept set skips the update altogether.
    """
    optimizer.zero_grad(set_to_none=True)
    n = int(kept.numel())
    if n == 0:
        return StepCost(0, 0, 0)
    logp = log_prob(policy, inputs[kept], actions[kept])
    loss = -(weights[kept].detach() * logp).sum() / len(inputs)
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

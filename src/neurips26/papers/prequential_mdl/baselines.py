"""The comparison measures: the Blier-Ollivier block code (retraining on prefixes) and the classic complexity measures
of the trained network (norms, distance from initialisation, sharpness, margin, parameter count)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from neurips26.common.models.hessian import top_eigenpairs
from neurips26.papers.prequential_mdl.method import code_length_bits


def block_boundaries(n: int, fractions: Sequence[float]) -> list[int]:
    """0 = t_0 < t_1 < ... < t_S = n from increasing fractions ending at 1 (empty blocks are dropped)."""
    if not fractions or abs(fractions[-1] - 1.0) > 1e-9 or any(b <= a for a, b in zip(fractions, fractions[1:])):
        raise ValueError(f"block fractions must increase strictly to 1.0, got {list(fractions)}")
    cuts = sorted({max(1, round(f * n)) for f in fractions} | {n})
    return [0, *cuts]


def block_code_length(x: torch.Tensor, y: torch.Tensor, classes: int, fractions: Sequence[float],
                      fit: Callable[[torch.Tensor, torch.Tensor], Callable[[torch.Tensor], torch.Tensor]]) -> float:
    """Blier & Ollivier's prequential block code, in bits: the first block with the uniform code (log2 C per label),
    every later block with a model fitted from scratch to all earlier blocks. `fit(x, y)` returns a logits function;
    the examples are taken in the given order (shuffle before calling)."""
    bounds = block_boundaries(len(y), fractions)
    bits = bounds[1] * math.log2(classes)
    for start, stop in zip(bounds[1:], bounds[2:]):
        predict = fit(x[:start], y[:start])
        with torch.no_grad():
            bits += code_length_bits(predict(x[start:stop]), y[start:stop])
    return bits


def flat_params(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def norms(model: nn.Module, initial: torch.Tensor) -> dict:
    theta = flat_params(model)
    return {"l2_norm": float(theta.norm()), "dist_init": float((theta - initial).norm()), "params": theta.numel()}


def sharpness(model: nn.Module, x: torch.Tensor, y: torch.Tensor, iters: int, seed: int) -> float:
    """Top eigenvalue of the Hessian of the mean training cross-entropy at the final parameters (Lanczos)."""
    params = [p for p in model.parameters() if p.requires_grad]
    generator = torch.Generator().manual_seed(seed)
    values, _ = top_eigenpairs(lambda: F.cross_entropy(model(x), y), params, k=1, iters=iters, generator=generator)
    return float(values[0])


@torch.no_grad()
def margin_quantile(logits: torch.Tensor, labels: torch.Tensor, quantile: float) -> float:
    """The `quantile` of the output margins f_y - max_{j != y} f_j (negative for misclassified examples)."""
    true = logits.gather(1, labels[:, None]).squeeze(1)
    others = logits.scatter(1, labels[:, None], float("-inf")).max(dim=1).values
    return float(torch.quantile(true - others, quantile))

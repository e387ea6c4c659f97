"""Screens the gate is compared with, and the ungated baselines' weights.

Every screen maps (advantage A, log pi) of a batch to a priority; the gate keeps the highest. The official code
(google-deepmind/egg) offers delight, A, |A|, surprisal, uniform (random) and additive (alpha 0.5).
"""

from __future__ import annotations

import torch

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.kondo_gate.method import delight

SCREENS = ("delight", "random", "advantage", "abs_advantage", "surprisal", "additive")


def priority(screen: str, advantage: torch.Tensor, logp: torch.Tensor, generator: torch.Generator,
             alpha: float = 0.5) -> torch.Tensor:
    """The priority of each sample under `screen` (higher is kept first)."""
    if screen == "delight":
        return delight(advantage, logp)
    if screen == "random":
        return torch.rand(advantage.shape, generator=generator, dtype=advantage.dtype)
    if screen == "advantage":
        return advantage
    if screen == "abs_advantage":
        return advantage.abs()
    if screen == "surprisal":
        return -logp
    if screen == "additive":
        # the official code's additive priority (egg `compute_priority`): raw alpha * A + (1 - alpha) * surprisal
        return alpha * advantage + (1 - alpha) * (-logp)
    raise UserError(f"unknown screen {screen!r}; known: {', '.join(SCREENS)}")


def reinforce_weights(advantage: torch.Tensor) -> torch.Tensor:
    """REINFORCE with a batch-mean baseline: every sample weighted by its advantage."""
    return advantage

"""The colour-polarization filter array (4x4 cell), Malus-law channels and Stokes parameters.

Channels are stored as a (3, 4, H, W) tensor: colour (R, G, B) x analyzer angle (0, 45, 90, 135 degrees). The cell is
the Sony IMX250MYR layout of the EARI README: a 2x2 polarizer block (90 45 / 135 0) per colour of an RGGB Bayer of blocks.
"""

from __future__ import annotations

import math

import torch

ANGLES_DEG = (0, 45, 90, 135)
COLOURS = ("R", "G", "B")
# analyzer index (into ANGLES_DEG) at (row % 2, col % 2) and colour index at (row // 2 % 2, col // 2 % 2)
ANALYZER_AT = ((2, 1), (3, 0))
COLOUR_AT = ((0, 1), (1, 2))


def cell_maps(height: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-pixel colour and analyzer index of the mosaic (two int64 H x W maps)."""
    rows = torch.arange(height)[:, None]
    cols = torch.arange(width)[None, :]
    analyzer = torch.tensor(ANALYZER_AT)[rows % 2, cols % 2]
    colour = torch.tensor(COLOUR_AT)[rows // 2 % 2, cols // 2 % 2]
    return colour, analyzer


def masks(height: int, width: int) -> torch.Tensor:
    """(3, 4, H, W) float mask: 1 where the mosaic samples that colour-analyzer channel."""
    colour, analyzer = cell_maps(height, width)
    channel = colour * 4 + analyzer
    return (channel[None] == torch.arange(12)[:, None, None]).float().reshape(3, 4, height, width)


def malus(s0: torch.Tensor, dolp: torch.Tensor, aolp: torch.Tensor) -> torch.Tensor:
    """I_theta = S0/2 (1 + DoLP cos(2 theta - 2 AoLP)) for the four analyzers; s0 (3, H, W), dolp/aolp (H, W)."""
    theta = torch.tensor([math.radians(a) for a in ANGLES_DEG], dtype=s0.dtype)[:, None, None]
    modulation = 1 + dolp[None] * torch.cos(2 * theta - 2 * aolp[None])
    return s0[:, None] / 2 * modulation[None]


def mosaic(channels: torch.Tensor) -> torch.Tensor:
    """Sample the (3, 4, H, W) channels through the filter array: an H x W raw image."""
    return (channels * masks(*channels.shape[-2:])).sum(dim=(0, 1))


def stokes(channels: torch.Tensor, eps: float = 1e-6) -> dict[str, torch.Tensor]:
    """Per-colour S0, S1, S2, DoLP (clipped to [0, 1]) and AoLP (radians, [-pi/2, pi/2)) of (..., 4, H, W) channels."""
    i0, i45, i90, i135 = channels.unbind(-3)
    s0 = (i0 + i45 + i90 + i135) / 2
    s1, s2 = i0 - i90, i45 - i135
    dolp = (torch.sqrt(s1 ** 2 + s2 ** 2) / s0.clamp_min(eps)).clamp(0, 1)
    return {"s0": s0, "s1": s1, "s2": s2, "dolp": dolp, "aolp": 0.5 * torch.atan2(s2, s1)}

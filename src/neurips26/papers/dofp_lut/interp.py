"""Interpolation: per-channel bilinear initialisation, the intensity guide, and lightweight residual interpolation.

Every function maps a raw H x W mosaic to (3, 4, H, W) channels (or one guide plane) with fixed separable convolutions.
"""

from __future__ import annotations

from functools import lru_cache

import torch
import torch.nn.functional as F

from neurips26.papers.dofp_lut.mosaic import masks

# Tent of radius 4: exact bilinear interpolation between samples 4 pixels apart (R and B channels); the G channels
# (two samples per cell) use the same tent with normalisation by the local sample density (normalised convolution).
TENT = torch.tensor([1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0]) / 4
# [1 2 2 2 1]/8 weighs the four phases of a 4-periodic pattern equally: a full-resolution intensity guide that
# averages every colour and analyzer of the cell (the cell's modulation cancels in flat regions).
GUIDE = torch.tensor([1.0, 2.0, 2.0, 2.0, 1.0]) / 8


def separable(planes: torch.Tensor, taps: torch.Tensor, mode: str = "constant") -> torch.Tensor:
    """Filter each plane of (C, H, W) with taps (x) taps; zero padding, or reflect padding with mode='reflect'."""
    channels, r = planes.shape[0], len(taps) // 2
    x = planes[None]
    if mode == "reflect":
        x = F.pad(x, (r, r, r, r), mode="reflect")
    pad = 0 if mode == "reflect" else r
    taps = taps.to(planes.device)
    x = F.conv2d(x, taps.view(1, 1, -1, 1).expand(channels, 1, -1, 1).contiguous(), padding=(pad, 0), groups=channels)
    x = F.conv2d(x, taps.view(1, 1, 1, -1).expand(channels, 1, 1, -1).contiguous(), padding=(0, pad), groups=channels)
    return x[0]


@lru_cache(maxsize=8)
def _bilinear_weights(height: int, width: int, device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """The sampling masks and 1 / (local sample density) of every channel: image independent, so cached per size
    (and device: the `device: cuda` path keeps them on the GPU)."""
    m = masks(height, width).reshape(12, height, width).to(device)
    return m, 1.0 / separable(m, TENT)


def bilinear(raw: torch.Tensor) -> torch.Tensor:
    """Per-channel bilinear interpolation of the 12 channels (normalised convolution with the radius-4 tent)."""
    h, w = raw.shape
    m, inv_density = _bilinear_weights(h, w, str(raw.device))
    return (separable(m * raw, TENT) * inv_density).reshape(3, 4, h, w)


def guide(raw: torch.Tensor) -> torch.Tensor:
    """Full-resolution intensity guide: the mean of the cell's 16 samples around each pixel (H x W)."""
    return separable(raw[None], GUIDE, mode="reflect")[0]


def residual_interpolation(raw: torch.Tensor) -> torch.Tensor:
    """Guide + bilinearly interpolated residual (raw - guide) per channel: detail from the guide, level from the samples."""
    g = guide(raw)
    return g + bilinear(raw - g)

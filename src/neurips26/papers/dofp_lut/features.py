"""The three low-dimensional indices of DoFP-LUT, computed from the raw mosaic and its bilinear initialisation.

* analyzer residuals E (4 planes, one per analyzer): in the 2x2 window at each pixel every analyzer is sampled once;
  E_a = (raw sample of analyzer a - the initialisation of that sample's colour-analyzer channel at this pixel) / that
  colour's initial S0. These are the post-initialisation residuals, made colour-free by the local mean.
* the detail window (4 planes): the 2x2 window of (guide - init intensity) / init intensity, a high-pass of the S0 guide.
* the polarization state (DoLP, cos 2phi, sin 2phi) of the corrected channels (computed inside the pipeline).
Indices live in [0, 1]; quantised with LEVELS = 17 (4-bit sampling, both ends included, as SR-LUT).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import torch
import torch.nn.functional as F

from neurips26.papers.dofp_lut.interp import bilinear, guide
from neurips26.papers.dofp_lut.mosaic import cell_maps

LEVELS = 17
EPS = 1e-4
WINDOW = ((0, 0), (0, 1), (1, 0), (1, 1))


@dataclass
class Features:
    x0: torch.Tensor      # (3, 4, H, W) bilinear initialisation
    s0c: torch.Tensor     # (3, H, W) per-colour initial S0
    residual: torch.Tensor  # (4, H, W) analyzer residuals, indexed by analyzer
    detail: torch.Tensor  # (4, H, W) 2x2 window of the guide's relative high-pass


@lru_cache(maxsize=8)
def window_maps(height: int, width: int, device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For each window offset: the colour, analyzer and channel (colour * 4 + analyzer) of the sample there,
    with the bottom/right border replicated exactly as the raw values are (so labels always match values)."""
    colour, analyzer = cell_maps(height, width)
    padded = [F.pad(m[None, None].float(), (0, 1, 0, 1), mode="replicate")[0, 0].long() for m in (colour, analyzer)]
    cols = torch.stack([padded[0][dy:dy + height, dx:dx + width] for dy, dx in WINDOW])
    anas = torch.stack([padded[1][dy:dy + height, dx:dx + width] for dy, dx in WINDOW])
    return cols.to(device), anas.to(device), (cols * 4 + anas).to(device)


def shifted_window(plane: torch.Tensor) -> torch.Tensor:
    """(4, H, W): the plane at the four offsets of the 2x2 window (bottom/right border replicated)."""
    h, w = plane.shape
    padded = F.pad(plane[None, None], (0, 1, 0, 1), mode="replicate")[0, 0]
    return torch.stack([padded[dy:dy + h, dx:dx + w] for dy, dx in WINDOW])


def compute(raw: torch.Tensor) -> Features:
    h, w = raw.shape
    x0 = bilinear(raw)
    s0c = x0.sum(dim=1) / 2
    cols, anas, chans = window_maps(h, w, str(raw.device))
    samples = shifted_window(raw)
    init_there = x0.reshape(12, h, w).gather(0, chans)
    level = s0c.gather(0, cols).clamp_min(EPS)
    residual = torch.zeros(4, h, w, device=raw.device).scatter_(0, anas, (samples - init_there) / level)
    g = guide(raw)
    intensity = (x0[0].sum(0) + 2 * x0[1].sum(0) + x0[2].sum(0)) / 16  # the init's estimate of the guide
    detail = shifted_window((g - intensity) / intensity.clamp_min(EPS))
    return Features(x0, s0c, residual, detail)


def to_unit(values: torch.Tensor, half_range: float) -> torch.Tensor:
    """Map [-half_range, half_range] onto the index interval [0, 1] (clipped)."""
    return (0.5 + values / (2 * half_range)).clamp(0, 1)


def quantise(u: torch.Tensor) -> torch.Tensor:
    """Nearest lattice level (0..16) of an index in [0, 1]."""
    return torch.round(u * (LEVELS - 1)).long()


def flat_index(q: torch.Tensor) -> torch.Tensor:
    """Row of a LUT for lattice coordinates q (..., k): the base-17 number q_0 q_1 ... q_{k-1}."""
    index = torch.zeros(q.shape[:-1], dtype=torch.long)
    for j in range(q.shape[-1]):
        index = index * LEVELS + q[..., j]
    return index


def lattice(dims: int) -> torch.Tensor:
    """Every lattice point of [0, 1]^dims, ordered as flat_index numbers them (LEVELS**dims x dims)."""
    axes = torch.meshgrid(*[torch.arange(LEVELS)] * dims, indexing="ij")
    return torch.stack([a.reshape(-1) for a in axes], dim=-1).float() / (LEVELS - 1)

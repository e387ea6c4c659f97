"""Baselines besides bilinear and residual interpolation (interp.py): a generic SR-LUT-style LUT and polanalyser.

Generic SR-LUT: one 2x2 receptive field on the raw mosaic (normalised by the local guide), 4-bit sampling (17^4 rows),
a network transferred to the table by evaluating it on the lattice, nearest-neighbour lookup. It knows the polarizer
phase (one table per phase of the 2x2 polarizer block) but none of DoFP-LUT's structure: no post-initialisation
residuals, no analyzer sharing, no Stokes-preserving write-back, no detail head. Its output is a per-analyzer correction
x[c, a] += S0_c * delta_a.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from neurips26.papers.dofp_lut import features as ft
from neurips26.papers.dofp_lut.interp import guide
from neurips26.papers.dofp_lut.method import mlp

PHASES = 4


def generic_inputs(raw: torch.Tensor, cfg) -> tuple[torch.Tensor, torch.Tensor]:
    """(4, H, W) index in [0, 1] (2x2 raw window / (range * guide)) and the (H, W) polarizer phase."""
    h, w = raw.shape
    u = (ft.shifted_window(raw) / (float(cfg.generic_range) * guide(raw).clamp_min(ft.EPS))[None]).clamp(0, 1)
    phase = (torch.arange(h)[:, None] % 2) * 2 + torch.arange(w)[None, :] % 2
    return u, phase


class GenericNet(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.net = mlp(4 + PHASES, hidden, 4)

    def forward(self, u: torch.Tensor, phase: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([u, nn.functional.one_hot(phase, PHASES).float()], dim=-1))


def generic_apply(x0: torch.Tensor, s0c: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
    """Pixels-as-batch write-back: x0 (P, 3, 4) + s0c (P, 3) * delta (P, 4)."""
    return x0 + s0c[:, :, None] * delta[:, None, :]


@torch.no_grad()
def compile_generic(net: GenericNet) -> torch.Tensor:
    """(PHASES * 17^4, 4) table: the network on the lattice of every phase."""
    grid = ft.lattice(4)
    return torch.cat([net(grid, torch.full((len(grid),), p)) for p in range(PHASES)]).contiguous()


@torch.no_grad()
def generic_lut_demosaic(raw: torch.Tensor, table: torch.Tensor, cfg) -> torch.Tensor:
    f = ft.compute(raw)
    u, phase = generic_inputs(raw, cfg)
    index = phase * ft.LEVELS ** 4 + ft.flat_index(ft.quantise(u).permute(1, 2, 0))
    return f.x0 + f.s0c[:, None] * table[index].permute(2, 0, 1)[None]


def polanalyser_demosaic(raw: torch.Tensor, variant: str = "") -> torch.Tensor:
    """polanalyser 3.0's colour-polarization demosaicing (OpenCV Bayer demosaicing per polarizer sub-image, then per
    colour); it converts float input to uint16 internally. variant: '' (bilinear) or '_EA' (edge-aware)."""
    import polanalyser as pa

    code = {"": pa.COLOR_PolarRGB, "_EA": pa.COLOR_PolarRGB_EA}[variant]
    bgr = pa.demosaicing(raw.numpy().astype(np.float32), code)  # [0, 45, 90, 135], each (H, W, 3) in BGR order
    channels = np.stack([b[..., ::-1].transpose(2, 0, 1) for b in bgr], axis=1)  # (3 RGB, 4, H, W)
    return torch.from_numpy(np.ascontiguousarray(channels)).float()

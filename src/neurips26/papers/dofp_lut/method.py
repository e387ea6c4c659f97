"""DoFP-LUT: the factorised teacher (three heads), its compilation into three LUTs, and table-only inference.

Stages after the bilinear initialisation x0 (write-backs are fixed; only the heads are learned):
  A  analyzer correction: for analyzer a, the head sees the four analyzer residuals rotated so that a comes first
     (one table shared by the four analyzers: rotating the scene's polarization by 45 degrees permutes the analyzers
     cyclically); x[c, a] += S0_c * A(...), shared by the three colours.
  P  polarization redistribution: index (DoLP, cos 2phi, sin 2phi) of the corrected colour-summed channels; output
     (alpha, beta); x[c] += S0_c * [alpha, beta, -alpha, -beta], so I0 + I90 and I45 + I135 are left unchanged.
  H  high-frequency compensation: index = 2x2 window of the guide's relative high-pass; x *= 1 + H(...).
The teacher evaluates the heads (small MLPs) on continuous indices; DoFP-LUT evaluates them once on the 17^k lattice
(`compile_luts`) and at inference only rounds indices to the lattice and reads the tables (`lut_demosaic`).
"""

from __future__ import annotations

import torch
from torch import nn

from neurips26.papers.dofp_lut import features as ft

STAGES = ("A", "P", "H")
INDEX_DIMS = {"A": 4, "P": 3, "H": 4}
OUTPUT_DIMS = {"A": 1, "P": 2, "H": 1}
ROTATIONS = torch.tensor([[(a + j) % 4 for j in range(4)] for a in range(4)])


def mlp(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    """Two hidden ReLU layers; the last layer starts at zero so an untrained head leaves its input unchanged."""
    net = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                        nn.Linear(hidden, outputs))
    nn.init.zeros_(net[-1].weight)
    nn.init.zeros_(net[-1].bias)
    return net


class Teacher(nn.Module):
    """The three heads; each maps its [0, 1]^k index to its correction."""

    def __init__(self, hidden: int):
        super().__init__()
        self.heads = nn.ModuleDict({s: mlp(INDEX_DIMS[s], hidden, OUTPUT_DIMS[s]) for s in STAGES})

    def forward(self, stage: str, u: torch.Tensor) -> torch.Tensor:
        return self.heads[stage](u)


class LutHeads:
    """The compiled tables, called like the teacher's heads: nearest lattice point, then one row read."""

    def __init__(self, luts: dict[str, torch.Tensor]):
        self.luts = luts

    def __call__(self, stage: str, u: torch.Tensor) -> torch.Tensor:
        return self.luts[stage][ft.flat_index(ft.quantise(u))].reshape(*u.shape[:-1], OUTPUT_DIMS[stage])


def polarization_index(x: torch.Tensor) -> torch.Tensor:
    """(DoLP, (cos 2phi + 1)/2, (sin 2phi + 1)/2) of the colour-summed channels; x is (P, 3, 4) -> (P, 3)."""
    total = x.sum(dim=1)
    s0 = total.sum(dim=-1) / 2
    s1, s2 = total[:, 0] - total[:, 2], total[:, 1] - total[:, 3]
    norm = torch.sqrt(s1 ** 2 + s2 ** 2)
    dolp = (norm / s0.clamp_min(ft.EPS)).clamp(0, 1)
    cos, sin = s1 / norm.clamp_min(ft.EPS), s2 / norm.clamp_min(ft.EPS)
    return torch.stack([dolp, (cos + 1) / 2, (sin + 1) / 2], dim=-1).clamp(0, 1)


def redistribution(alpha_beta: torch.Tensor) -> torch.Tensor:
    """[alpha, beta, -alpha, -beta] over the analyzers (0, 45, 90, 135): zero-sum within both orthogonal pairs."""
    alpha, beta = alpha_beta.unbind(-1)
    return torch.stack([alpha, beta, -alpha, -beta], dim=-1)


def pipeline(x0, s0c, residual, detail, heads, cfg, use=STAGES) -> torch.Tensor:
    """Pixels-as-batch form: x0 (P, 3, 4), s0c (P, 3), residual and detail (P, 4) -> corrected channels (P, 3, 4)."""
    x = x0
    if "A" in use:
        u = ft.to_unit(residual, float(cfg.residual_range))[:, ROTATIONS]
        x = x + s0c[:, :, None] * heads("A", u)[..., 0][:, None, :]
    if "P" in use:
        x = x + (x.sum(dim=-1) / 2)[:, :, None] * redistribution(heads("P", polarization_index(x)))[:, None, :]
    if "H" in use:
        x = x * (1 + heads("H", ft.to_unit(detail, float(cfg.detail_range))))[:, :, None]
    return x


def as_pixels(f: ft.Features) -> tuple[torch.Tensor, ...]:
    """Planar features -> pixels-as-batch tensors for `pipeline`."""
    h, w = f.s0c.shape[-2:]
    return (f.x0.permute(2, 3, 0, 1).reshape(h * w, 3, 4), f.s0c.permute(1, 2, 0).reshape(h * w, 3),
            f.residual.permute(1, 2, 0).reshape(h * w, 4), f.detail.permute(1, 2, 0).reshape(h * w, 4))


@torch.no_grad()
def teacher_demosaic(raw: torch.Tensor, teacher: Teacher, cfg, chunk: int = 65536, use=STAGES) -> torch.Tensor:
    """The teacher on a whole image: (H, W) raw -> (3, 4, H, W), evaluated in pixel chunks to bound memory."""
    h, w = raw.shape
    pixels = as_pixels(ft.compute(raw))
    out = torch.cat([pipeline(*(p[i:i + chunk] for p in pixels), teacher, cfg, use) for i in range(0, h * w, chunk)])
    return out.reshape(h, w, 3, 4).permute(2, 3, 0, 1)


@torch.no_grad()
def compile_luts(teacher: Teacher) -> dict[str, torch.Tensor]:
    """Evaluate every head on its full lattice: row flat_index(q) holds head(q / 16). Done once, offline."""
    return {s: teacher(s, ft.lattice(INDEX_DIMS[s])).squeeze(-1).contiguous() for s in STAGES}


def lut_kilobytes(luts: dict[str, torch.Tensor]) -> dict[str, float]:
    return {s: t.numel() * t.element_size() / 1024 for s, t in luts.items()}


def _planar_index(planes: list[torch.Tensor]) -> torch.Tensor:
    """flat_index for quantised planes given separately (avoids stacking them into a pixels-last tensor)."""
    index = planes[0]
    for plane in planes[1:]:
        index = index * ft.LEVELS + plane
    return index


@torch.no_grad()
def lut_demosaic(raw: torch.Tensor, luts: dict[str, torch.Tensor], cfg, use=STAGES) -> torch.Tensor:
    """Table-only inference in planar layout (no network): raw (H, W) -> channels (3, 4, H, W). Same arithmetic as
    `pipeline` with LutHeads, written plane by plane for speed."""
    f = ft.compute(raw)
    x = f.x0
    if "A" in use:
        q = ft.quantise(ft.to_unit(f.residual, float(cfg.residual_range)))
        correction = torch.stack([luts["A"][_planar_index([q[r] for r in rot])] for rot in ROTATIONS.tolist()])
        x = x + f.s0c[:, None] * correction[None]
    if "P" in use:
        total = x.sum(dim=0)
        s0 = total.sum(dim=0) / 2
        s1, s2 = total[0] - total[2], total[1] - total[3]
        norm = torch.sqrt(s1 ** 2 + s2 ** 2)
        u = [(norm / s0.clamp_min(ft.EPS)).clamp(0, 1), ((s1 / norm.clamp_min(ft.EPS) + 1) / 2).clamp(0, 1),
             ((s2 / norm.clamp_min(ft.EPS) + 1) / 2).clamp(0, 1)]
        ab = luts["P"][_planar_index([ft.quantise(v) for v in u])]
        alpha, beta = ab[..., 0], ab[..., 1]
        x = x + (x.sum(dim=1) / 2)[:, None] * torch.stack([alpha, beta, -alpha, -beta])[None]
    if "H" in use:
        q = ft.quantise(ft.to_unit(f.detail, float(cfg.detail_range)))
        x = x * (1 + luts["H"][_planar_index(list(q))])[None, None]
    return x

"""The colour-polarization mosaic against the brief's 4x4 cell, Malus/Stokes identities, and demosaic round trips."""

import math

import numpy as np
import pytest
import torch

from neurips26.papers.dofp_lut import baselines, interp
from neurips26.papers.dofp_lut.metrics import evaluate, psnr
from neurips26.papers.dofp_lut.mosaic import ANGLES_DEG, COLOURS, malus, masks, mosaic, stokes
from neurips26.papers.dofp_lut.timing import tile

# The cell as the brief (EARI README) writes it, parsed independently of mosaic.py's tables.
CELL = "R90 R45 G90 G45 / R135 R0 G135 G0 / G90 G45 B90 B45 / G135 G0 B135 B0"


def piecewise_constant(h=32, w=40, seed=0):
    return torch.rand(3, 4, 1, 1, generator=torch.Generator().manual_seed(seed)).expand(3, 4, h, w).contiguous()


def test_mosaic_samples_the_cell_of_the_brief():
    m = masks(8, 12)
    for r, row in enumerate(CELL.split(" / ")):
        for c, name in enumerate(row.split()):
            colour, angle = COLOURS.index(name[0]), ANGLES_DEG.index(int(name[1:]))
            for dr in (0, 4):
                for dc in (0, 4, 8):
                    assert m[:, :, r + dr, c + dc].nonzero().tolist() == [[colour, angle]]


def test_malus_channels_satisfy_the_stokes_identities():
    gen = torch.Generator().manual_seed(1)
    s0, dolp = torch.rand(3, 6, 7, generator=gen), torch.rand(6, 7, generator=gen)
    aolp = torch.rand(6, 7, generator=gen) * math.pi
    x = malus(s0, dolp, aolp)
    assert torch.allclose(x[:, 0] + x[:, 2], s0, atol=1e-6) and torch.allclose(x[:, 1] + x[:, 3], s0, atol=1e-6)
    s = stokes(x)
    assert torch.allclose(s["dolp"], dolp.expand(3, -1, -1), atol=1e-4)
    delta = torch.remainder(s["aolp"] - aolp + math.pi / 2, math.pi) - math.pi / 2
    assert delta.abs().max() < 1e-3


@pytest.mark.parametrize("method", [interp.bilinear, interp.residual_interpolation, baselines.polanalyser_demosaic])
def test_constant_scene_round_trips_through_mosaic_and_demosaic(method):
    truth = piecewise_constant()
    estimate = method(mosaic(truth))
    assert (estimate - truth)[..., 6:-6, 6:-6].abs().max() < 1e-4


def test_bilinear_reproduces_the_raw_samples_of_r_and_b_and_linear_ramps():
    truth = torch.rand(3, 4, 24, 28, generator=torch.Generator().manual_seed(2))
    raw = mosaic(truth)
    rb = masks(24, 28)[[0, 2]].sum(dim=(0, 1)).bool()
    assert torch.allclose(mosaic(interp.bilinear(raw))[rb], raw[rb], atol=1e-6)
    ramp = (torch.arange(28.0)[None, :] * 0.01 + torch.arange(24.0)[:, None] * 0.02).expand(3, 4, 24, 28)
    assert (interp.bilinear(mosaic(ramp))[[0, 2]] - ramp[[0, 2]])[..., 4:-4, 4:-4].abs().max() < 1e-5


def test_guide_averages_every_channel_of_the_cell():
    truth = piecewise_constant(seed=3)
    weights = torch.tensor([1.0, 2.0, 1.0])[:, None, None, None] / 16  # R, 2 G, B per analyzer
    expected = (truth * weights).sum(dim=(0, 1))
    assert torch.allclose(interp.guide(mosaic(truth))[2:-2, 2:-2], expected[2:-2, 2:-2], atol=1e-6)  # reflect border


def test_tiling_keeps_the_filter_array_aligned():
    raw = mosaic(piecewise_constant(16, 20, seed=4))
    big = tile(raw.numpy(), 44)  # timing.tile works on the numpy (uint16 or float32) frames the harness times
    assert np.array_equal(big, mosaic(piecewise_constant(44, 44, seed=4)).numpy())


def test_metrics_closed_forms():
    truth = malus(torch.full((3, 20, 20), 0.5), torch.full((20, 20), 0.5), torch.full((20, 20), math.radians(89)))
    turned = malus(torch.full((3, 20, 20), 0.5), torch.full((20, 20), 0.5), torch.full((20, 20), math.radians(-89)))
    scores = evaluate(turned, truth, border=2, dolp_threshold=0.1)
    assert scores["aolp_mae_deg"] == pytest.approx(2.0, abs=1e-3)  # 89 and -89 degrees are 2 degrees apart
    assert scores["psnr_dolp"] > 60 and scores["psnr_s0"] > 60
    assert psnr(torch.zeros(10), torch.full((10,), 0.1)) == pytest.approx(20.0)
    assert np.isnan(evaluate(truth * 0 + 0.1, truth * 0 + 0.1, 2, 0.1)["aolp_mae_deg"])  # no polarized pixel

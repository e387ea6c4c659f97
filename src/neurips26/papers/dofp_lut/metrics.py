"""Quality metrics on the interior (a fixed border is ignored): CPSNR over the 12 channels, PSNR of S0 and DoLP,
AoLP mean absolute error in degrees where the true DoLP > threshold. Intensities and DoLP have peak 1."""

from __future__ import annotations

import math

import torch

from neurips26.papers.dofp_lut.mosaic import stokes


def psnr(estimate: torch.Tensor, truth: torch.Tensor, peak: float = 1.0) -> float:
    mse = float(((estimate.double() - truth.double()) ** 2).mean())
    return 10 * math.log10(peak ** 2 / max(mse, 1e-20))


def evaluate(estimate: torch.Tensor, truth: torch.Tensor, border: int, dolp_threshold: float) -> dict[str, float]:
    """Metrics of (3, 4, H, W) estimated channels against the truth."""
    crop = (..., slice(border, -border), slice(border, -border))
    est, ref = estimate[crop], truth[crop]
    se, sr = stokes(est), stokes(ref)
    angle = torch.rad2deg(se["aolp"] - sr["aolp"]).double()
    error = torch.abs((angle + 90) % 180 - 90)  # AoLP is pi-periodic
    polarized = sr["dolp"] > dolp_threshold
    return {"cpsnr": psnr(est, ref), "psnr_s0": psnr(se["s0"], sr["s0"]), "psnr_dolp": psnr(se["dolp"], sr["dolp"]),
            "aolp_mae_deg": float(error[polarized].mean()) if polarized.any() else float("nan")}

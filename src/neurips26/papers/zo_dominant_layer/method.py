"""MeZO (SPSA with the seed trick) on any parameter subset, and the inference-only dominant-layer detector.

MeZO step on parameters S (Malladi et al. 2023): z ~ N(0, I) is never stored, only its seed; theta_S += eps z -> l+,
theta_S -= 2 eps z -> l-, theta_S += eps z, then theta_S -= lr * g z with g = (l+ - l-) / (2 eps). E_z[g z] is the
gradient of the loss smoothed at scale eps (the gradient itself for a quadratic), checked in the unit tests.

Detector: r_l = max|h_l| / median|h_l| over the real tokens of the residual stream after layer l; an activation counts
as massive when |h| > abs_min and r > ratio_min (Sun et al. 2024: magnitudes above 100 and ~1000x the median);
l* is the first decoder layer whose output holds one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch


def perturb(params: Sequence[torch.Tensor], seed: int, scale: float) -> None:
    """params += scale * z, with z regenerated from `seed` in a fixed order (the same z on every call)."""
    generator = None
    with torch.no_grad():
        for p in params:
            if generator is None:  # on the parameters' device (the same z on every call either way)
                generator = torch.Generator(device=p.device).manual_seed(int(seed))
            z = torch.randn(p.shape, generator=generator, dtype=p.dtype, device=p.device)
            p.add_(z, alpha=scale)


def spsa_projection(params: Sequence[torch.Tensor], loss_fn: Callable[[], float], eps: float, seed: int):
    """(g, l+, l-): the two-point projected gradient along the seed's z; params are restored (up to rounding)."""
    perturb(params, seed, eps)
    plus = float(loss_fn())
    perturb(params, seed, -2 * eps)
    minus = float(loss_fn())
    perturb(params, seed, eps)
    return (plus - minus) / (2 * eps), plus, minus


def mezo_step(params: Sequence[torch.Tensor], loss_fn: Callable[[], float], eps: float, lr: float, seed: int) -> dict:
    """One MeZO step in place; returns the projected gradient and the two losses."""
    g, plus, minus = spsa_projection(params, loss_fn, eps, seed)
    perturb(params, seed, -lr * g)
    return {"projected_grad": g, "loss_plus": plus, "loss_minus": minus}


def spsa_gradient(params: Sequence[torch.Tensor], loss_fn: Callable[[], float], eps: float, seed: int):
    """The SPSA gradient estimate g z itself (for tests and diagnostics; MeZO never materialises it)."""
    g, _, _ = spsa_projection(params, loss_fn, eps, seed)
    generator = torch.Generator(device=params[0].device).manual_seed(int(seed))
    return [g * torch.randn(p.shape, generator=generator, dtype=p.dtype, device=p.device) for p in params]


def outlier_profile(states: Sequence[torch.Tensor], mask: torch.Tensor) -> list[dict]:
    """Per residual-stream state (index 0: embeddings, index l: output of decoder layer l, 1-based): max|h|,
    median|h| over real tokens, their ratio, and where the max sits (token position from the text's start, channel)."""
    real = mask.bool()
    starts = real.int().argmax(1)  # the first real token of each row (left or right padding)
    rows = []
    for index, h in enumerate(states):
        a = h.detach().abs().float()
        values = a[real]
        flat = int((a * real[..., None]).flatten().argmax())
        b, t, d = np.unravel_index(flat, a.shape)
        rows.append({"state": index, "max_abs": float(values.max()), "median_abs": float(values.median()),
                     "ratio": float(values.max() / values.median().clamp(min=1e-12)),
                     "token": int(t - starts[b]), "channel": int(d)})
    return rows


def first_outlier_layer(profile: Sequence[dict], ratio_min: float, abs_min: float) -> int:
    """0-based index of the first decoder layer whose output holds a massive activation; -1 when none does."""
    for row in profile:
        if row["state"] > 0 and row["max_abs"] > abs_min and row["ratio"] > ratio_min:
            return row["state"] - 1
    return -1

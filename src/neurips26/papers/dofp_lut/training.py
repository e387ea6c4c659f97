"""Training on a pool of pixels: every head sees only per-pixel indices, so random pixels (not patches) are a batch.

Loss (brief): L1 on the 12 channels + lambda * L1 on each colour's S1 and S2.
"""

from __future__ import annotations

import numpy as np
import torch
from tqdm import tqdm

from neurips26.common.models import optim
from neurips26.papers.dofp_lut import baselines
from neurips26.papers.dofp_lut import features as ft
from neurips26.papers.dofp_lut.data import Scene
from neurips26.papers.dofp_lut.method import STAGES, Teacher, as_pixels, pipeline

BORDER = 4  # pixels whose 2x2 window or filters reach the replicated border are not trained on


def pixel_pool(scenes: list[Scene], per_image: int, rng: np.random.Generator, cfg) -> dict[str, torch.Tensor]:
    """Features and targets of `per_image` random interior pixels of every scene, pixels-as-batch."""
    parts: dict[str, list[torch.Tensor]] = {}
    for scene in scenes:
        h, w = scene.raw.shape
        x0, s0c, residual, detail = as_pixels(ft.compute(scene.raw))
        u, phase = baselines.generic_inputs(scene.raw, cfg.index)
        rows = torch.arange(h)[:, None].expand(h, w).reshape(-1)
        cols = torch.arange(w)[None, :].expand(h, w).reshape(-1)
        interior = torch.nonzero((rows >= BORDER) & (rows < h - BORDER) & (cols >= BORDER) & (cols < w - BORDER))[:, 0]
        pick = interior[torch.from_numpy(rng.choice(len(interior), min(per_image, len(interior)), replace=False))]
        values = {"x0": x0, "s0c": s0c, "residual": residual, "detail": detail,
                  "window": u.permute(1, 2, 0).reshape(-1, 4), "phase": phase.reshape(-1),
                  "target": scene.truth.permute(2, 3, 0, 1).reshape(h * w, 3, 4)}
        for key, value in values.items():
            parts.setdefault(key, []).append(value[pick])
    return {k: torch.cat(v) for k, v in parts.items()}


def loss_fn(pred: torch.Tensor, target: torch.Tensor, stokes_weight: float, normalised: bool = False) -> torch.Tensor:
    """L1 on channels + weight * L1 on S1 and S2 (optionally divided by the true S0: the DoLP scale)."""
    channel = (pred - target).abs().mean()
    scale = target.sum(-1).clamp_min(0.01) / 2 if normalised else 1.0
    s1 = (((pred[..., 0] - pred[..., 2]) - (target[..., 0] - target[..., 2])) / scale).abs().mean()
    s2 = (((pred[..., 1] - pred[..., 3]) - (target[..., 1] - target[..., 3])) / scale).abs().mean()
    return channel + stokes_weight * (s1 + s2)


def _fit(model: torch.nn.Module, predict, pool: dict, rng: np.random.Generator, cfg, label: str) -> list[float]:
    optimiser = optim.Adam(model.parameters(), lr=float(cfg.lr))
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=int(cfg.steps))
    size, losses = len(pool["target"]), []
    for _ in tqdm(range(int(cfg.steps)), desc=label, mininterval=5):
        pick = torch.from_numpy(rng.integers(0, size, int(cfg.batch)))
        batch = {k: v[pick] for k, v in pool.items()}
        loss = loss_fn(predict(batch), batch["target"], float(cfg.stokes_weight), bool(cfg.stokes_normalised))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        losses.append(float(loss.detach()))
    return losses


def train_teacher(pool: dict, rng: np.random.Generator, cfg, use=STAGES) -> Teacher:
    """The teacher's heads trained jointly through the fixed write-backs (`use`: the stages in the pipeline)."""
    teacher = Teacher(int(cfg.teacher.hidden))
    _fit(teacher, lambda b: pipeline(b["x0"], b["s0c"], b["residual"], b["detail"], teacher, cfg.index, use),
         pool, rng, cfg.train, "teacher")
    return teacher.eval()


def train_generic(pool: dict, rng: np.random.Generator, cfg) -> baselines.GenericNet:
    net = baselines.GenericNet(int(cfg.teacher.hidden))
    _fit(net, lambda b: baselines.generic_apply(b["x0"], b["s0c"], net(b["window"], b["phase"])),
         pool, rng, cfg.train, "generic")
    return net.eval()

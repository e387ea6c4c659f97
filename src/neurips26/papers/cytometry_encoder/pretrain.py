"""Masked-reconstruction pretraining of the set encoder, and frozen embedding of samples (optionally minus markers)."""

from __future__ import annotations

import numpy as np
import torch

from neurips26.common.models import optim
from neurips26.papers.cytometry_encoder.corpus import Sample
from neurips26.papers.cytometry_encoder.model import SetEncoder

NAME_DIM = {"minilm": 384, "hashed": 128}  # MiniLM's sentence vectors; marker_vectors.HASHED_DIM


def build_model(cfg, width: int | None = None, names: str | None = None) -> SetEncoder:
    m = cfg.model
    return SetEncoder(NAME_DIM[str(names or m.names)], int(width or m.width), int(m.heads), int(m.inducing))


def batch(samples: list[Sample], cells: int, rng: np.random.Generator, drop: list[list[str]] | None = None,
          indexed: bool = False):
    """Padded tensors of a batch: cells drawn without replacement (with, if a sample has fewer); `drop` lists markers
    to remove per sample (test-time marker removal). Names: [B, M, D] (padding: zero vectors), or with `indexed` the
    pair (table [K + 1, D] of the batch's distinct markers after a zero row, index [B, M] into it; padding: row 0)."""
    width = max(len(s.markers) for s in samples)
    x = np.zeros((len(samples), cells, width), np.float32)
    present = np.zeros((len(samples), width), bool)
    index = np.zeros((len(samples), width), np.int64)
    rows_of: dict[str, int] = {}
    table = [np.zeros(samples[0].names.shape[1], np.float32)]
    for i, s in enumerate(samples):
        k = len(s.markers)
        rows = rng.choice(len(s.values), cells, replace=len(s.values) < cells)
        x[i, :, :k] = s.values[rows]
        for j, marker in enumerate(s.markers):
            if marker not in rows_of:
                rows_of[marker] = len(table)
                table.append(s.names[j])
            index[i, j] = rows_of[marker]
        present[i, :k] = True
        if drop is not None:
            present[i, [j for j, marker in enumerate(s.markers) if marker in drop[i]]] = False
    table, index = torch.from_numpy(np.stack(table)), torch.from_numpy(index)
    return torch.from_numpy(x), ((table, index) if indexed else table[index]), torch.from_numpy(present)


def masks(present: torch.Tensor, cells: int, mask_rate: float, marker_drop: float, generator: torch.Generator):
    """hidden [B, C, M]: values replaced by the mask token; dropped [B, M]: whole markers removed (>= 3 stay)."""
    b, m = present.shape
    hidden = (torch.rand(b, cells, m, generator=generator) < mask_rate) & present.unsqueeze(1)
    dropped = (torch.rand(b, m, generator=generator) < marker_drop) & present
    too_few = (present & ~dropped).sum(1) < 3
    dropped[too_few] = False
    return hidden, dropped


def pretrain(model: SetEncoder, samples: list[Sample], cfg, seed: int, on_step=None) -> tuple[float, np.ndarray]:
    """Train by masked reconstruction (+ whole-marker dropout). Returns the mean loss over the last 10% of steps and the
    curve [steps, 2]: the loss per step and, beside it, the reference loss of predicting every hidden value by its
    sample's mean of that marker (an oracle that knows the sample's marker means but not the cell's other markers):
    a loss below it means the encoder reads a cell's co-expression, the structure populations are made of.
    `on_step(step, model)`, if given, is called before the first step (0) and after every step (1..steps), in train
    mode; it may embed (the training draws its own generators, never a global one) but must leave the model as it was
    (pilots/positive_control_diagnostic.py probes snapshots along the schedule)."""
    p = cfg.pretrain
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    # fused: one kernel for every parameter's AdamW update (the per-tensor loop was ~15 % of a step at width 32)
    params = list(model.parameters())  # once: model.parameters() walks the module tree (clipping asked every step)
    optimiser = optim.AdamW(params, lr=float(p.lr), weight_decay=float(p.weight_decay), fused=True)
    clip = float(p.get("clip", 0.0))
    steps = int(p.steps)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, steps)
    curve = np.zeros((steps, 2))
    model.train()
    if on_step is not None:
        on_step(0, model)
        model.train()
    for step in range(steps):
        chosen = [samples[i] for i in rng.choice(len(samples), min(int(p.batch), len(samples)), replace=False)]
        x, names, present = batch(chosen, int(p.cells), rng, indexed=True)
        hidden, dropped = masks(present, int(p.cells), float(p.mask_rate), float(p.marker_drop), generator)
        h = model.cells(x, names, present & ~dropped, hidden)
        target = (hidden | dropped.unsqueeze(1)) & present.unsqueeze(1)
        loss = ((model.reconstruct(h, names) - x)[target] ** 2).mean()
        optimiser.zero_grad()
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(params, clip)
        optimiser.step()
        schedule.step()
        with torch.no_grad():
            reference = ((x - x.mean(1, keepdim=True))[target] ** 2).mean()
        curve[step] = loss.item(), reference.item()
        if on_step is not None:
            on_step(step + 1, model)
            model.train()
    return float(curve[-max(1, steps // 10):, 0].mean()), curve


def converged(losses: np.ndarray, window: float, tolerance: float) -> tuple[bool, float]:
    """The budget's convergence rule: the mean loss over the last `window` share of steps is within `tolerance`
    (relative) of the mean over the window before it. Returns (holds, relative improvement)."""
    w = max(1, int(round(window * len(losses))))
    if len(losses) < 2 * w:
        return False, float("nan")
    last, before = float(np.mean(losses[-w:])), float(np.mean(losses[-2 * w:-w]))
    improvement = (before - last) / abs(before) if before else 0.0
    return bool(improvement < tolerance), improvement


@torch.inference_mode()
def embed(model: SetEncoder, samples: list[Sample], cells: int, seed: int, drop: list[list[str]] | None = None,
          batch_size: int = 8, with_cells: bool = False):
    """Frozen sample embeddings [N, 2W] (and, with_cells, the contextual cell embeddings [N, cells, W]). Batches of 8
    samples (200 cells x 12 markers each: ~2 MB activations) stay in cache; 32 took ~1.6x the time, the same values."""
    # torch's inference fast path turns padded marker sets into nested tensors, ~10x slower here than the plain path
    torch.backends.mha.set_fastpath_enabled(False)
    model.eval()
    rng = np.random.default_rng(seed)
    out, cell_out = [], []
    for start in range(0, len(samples), batch_size):
        part = samples[start:start + batch_size]
        x, names, present = batch(part, cells, rng, None if drop is None else drop[start:start + batch_size])
        h = model.cells(x, names, present)
        out.append(model.sample_embedding(h))
        if with_cells:
            cell_out.append(h)
    z = torch.cat(out).numpy()
    return (z, torch.cat(cell_out).numpy()) if with_cells else z

"""Fine-tuning runs: MeZO (or first-order Adam, the reference) on a parameter set, with dev-accuracy curves, the
best-dev checkpoint's test accuracy, seconds per step and peak memory; and the learning-rate grid on the dev split.

Fair terms (issue #55 item 1): every method sees the same minibatches (one stream per run seed), the same number of
forward passes (a MeZO step costs two, an Adam step one, so Adam takes twice the steps), the same evaluation schedule
(every `eval_every` MeZO steps' worth of forward passes) and a grid of the same size. The test accuracy is that of the
checkpoint with the best dev accuracy (MeZO's --load_best_model_at_end), the pretrained weights included: a run that
never improves on dev returns the pretrained model. Training never reads the test split.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from neurips26.common.models import optim
from neurips26.common.pipeline.seed_streams import rng as seed_stream
from neurips26.papers.zo_dominant_layer import method


@dataclass
class Split:
    """Row indices of the train pool, dev and test sets in the runner's prompts, and the labels."""

    train: np.ndarray
    dev: torch.Tensor
    test: torch.Tensor
    y: torch.Tensor


def evaluate(runner, y, rows, start: int = 0, chunk: int = 64) -> tuple[float, float]:
    """(loss, accuracy) on `rows`, forward from layer `start` (0: the full forward), in chunks of `chunk` prompts."""
    losses, hits = [], []
    with torch.no_grad():
        for i in range(0, len(rows), chunk):
            part = rows[i:i + chunk]
            logits = runner.logits(start, part)
            losses.append(torch.nn.functional.cross_entropy(logits, y[part], reduction="sum"))
            hits.append((logits.argmax(1) == y[part]).sum())
    n = len(rows)
    return float(sum(losses)) / n, float(sum(hits)) / n


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def _peak_memory_start(device: str) -> None:
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()


def _peak_memory_mb(device: str) -> float:
    """Peak allocated memory in MB during the run (CUDA only: CPU allocations are not tracked by torch)."""
    return torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else float("nan")


def plateaued(curve: list[dict], min_delta: float) -> bool:
    """The convergence rule: the best dev accuracy of the second half of the evaluations exceeds the best of the
    first half (the pretrained point included) by less than `min_delta`."""
    accs = [row["dev_acc"] for row in curve]
    half = (len(accs) + 1) // 2
    return len(accs) >= 2 and max(accs[half:]) - max(accs[:half]) < min_delta


def run(runner, split: Split, params, *, lr: float, eps: float, zo_steps: int, batch: int, eval_every: int,
        seed: int, start: int = 0, first_order: bool = False, pretrained: tuple[float, float],
        min_delta: float) -> tuple[dict, list[dict]]:
    """One fine-tuning run on `params` from the current weights; the weights are restored afterwards.

    zo_steps MeZO steps (first_order: 2 * zo_steps Adam steps, the same forward passes); `start` > 0 runs the
    forward from that layer on the cached prefix (valid only when `params` lie at or above it). Returns (summary,
    curve), the curve one row per evaluation: forward passes, dev loss and accuracy, training seconds so far."""
    device = params[0].device.type
    per_step = 1 if first_order else 2  # forward passes per step
    steps = zo_steps * 2 // per_step
    every = eval_every * 2 // per_step
    batches = seed_stream(seed, "minibatches")  # the same minibatches for every method and lr of this seed
    initial = [p.detach().clone() for p in params]
    best = {"dev_acc": pretrained[1], "state": [p.clone() for p in initial], "forward_passes": 0, "seconds": 0.0}
    curve = [{"forward_passes": 0, "dev_loss": pretrained[0], "dev_acc": pretrained[1], "train_seconds": 0.0}]
    optimizer = optim.Adam(params, lr=lr) if first_order else None
    elapsed = 0.0
    _peak_memory_start(device)
    for step in range(steps):
        rows = torch.as_tensor(batches.choice(split.train, batch, replace=False))
        _sync(device)
        tick = time.perf_counter()
        if first_order:
            for p in params:
                p.requires_grad_(True)
            optimizer.zero_grad()
            runner.loss(split.y, start, rows, grad=True).backward()
            optimizer.step()
            for p in params:
                p.requires_grad_(False)
        else:  # one seed per step: the same z for +eps, -eps and the update (MeZO's in-place seed trick)
            method.mezo_step(params, lambda rows=rows: runner.loss(split.y, start, rows), eps, lr,
                             seed * 1_000_003 + step)
        _sync(device)
        elapsed += time.perf_counter() - tick
        if (step + 1) % every == 0 or step + 1 == steps:
            loss, acc = evaluate(runner, split.y, split.dev, start)
            passes = (step + 1) * per_step
            curve.append({"forward_passes": passes, "dev_loss": loss, "dev_acc": acc, "train_seconds": elapsed})
            if acc > best["dev_acc"]:
                best = {"dev_acc": acc, "state": [p.detach().clone() for p in params], "forward_passes": passes,
                        "seconds": elapsed}
    peak = _peak_memory_mb(device)
    with torch.no_grad():
        for p, s in zip(params, best["state"]):
            p.copy_(s)
        test_loss, test_acc = evaluate(runner, split.y, split.test, start)
        for p, s in zip(params, initial):
            p.copy_(s)
    summary = {"lr": lr, "eps": eps, "steps": steps, "forward_passes": steps * per_step,
               "s_per_step": elapsed / max(steps, 1), "train_seconds": elapsed, "peak_mem_mb": peak,
               "best_dev_acc": best["dev_acc"], "best_forward_passes": best["forward_passes"],
               "seconds_to_best": best["seconds"], "test_loss": test_loss, "test_acc": test_acc,
               "plateaued": plateaued(curve, min_delta), "params": sum(p.numel() for p in params)}
    return summary, curve


def grid(runner, split: Split, params_for, lrs, **kwargs) -> tuple[list[dict], list[dict]]:
    """Every lr of the grid (params_for(): the parameter set, fresh for each lr, e.g. new LoRA adapters; it may return
    (params, cleanup)); the lr with the best dev accuracy is `chosen` (ties: the first in the grid). Returns (rows,
    curves) with an `lr` key on every row."""
    rows, curves = [], []
    for lr in lrs:
        made = params_for()
        params, cleanup = made if isinstance(made, tuple) else (made, None)
        summary, curve = run(runner, split, params, lr=float(lr), **kwargs)
        if cleanup is not None:
            cleanup()
        rows.append(summary)
        curves += [{**row, "lr": float(lr)} for row in curve]
    best = int(np.argmax([r["best_dev_acc"] for r in rows]))
    for i, row in enumerate(rows):
        row["chosen"] = i == best
    for row in curves:
        row["chosen"] = row["lr"] == rows[best]["lr"]
    return rows, curves

"""The method: train while reading off the prequential code, then the regret and the PAC-MDL / Occam bound.

Prequential code (first epoch): the training set is cut, in a random order, into minibatches B_1..B_K; batch B_k is
scored with theta_{k-1} (the forward pass that yields its gradient precedes the optimizer step), so every label is
encoded by a model that has never seen it:
    L_preq = sum_k sum_{i in B_k} -log2 p_{theta_{k-1}}(y_i | x_i)
Training then continues (later epochs add nothing to L_preq) until the training labels are interpolated or a maximum
number of epochs; L_fin = sum_i -log2 p_{theta_T}(y_i | x_i) and the realised regret R = L_preq - L_fin.
Ablation: the one-pass regret L_preq - L_{theta_K}, with theta_K the parameters at the end of the first epoch (the
online learner's own last iterate instead of the multi-epoch theta_T as the comparator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

LN2 = math.log(2.0)


def mlp(inputs: int, width: int, classes: int, depth: int = 1) -> nn.Sequential:
    layers, size = [], inputs
    for _ in range(depth):
        layers += [nn.Linear(size, width), nn.ReLU()]
        size = width
    return nn.Sequential(*layers, nn.Linear(size, classes))


def code_length_bits(logits: torch.Tensor, labels: torch.Tensor) -> float:
    """sum_i -log2 softmax(logits_i)[y_i]: the bits an arithmetic coder needs for the labels under the model."""
    return float(F.cross_entropy(logits, labels, reduction="sum")) / LN2


@dataclass
class Trajectory:
    preq_bits: float      # L_preq, the first-epoch prequential code length
    one_pass_bits: float  # sum_i -log2 p_{theta_K}(y_i | x_i), theta_K = the parameters after the first epoch
    sotl: float           # sum over epochs of the mean minibatch loss (nats)
    epochs: int
    steps: int
    interpolated: bool


def train_prequential(model: nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer,
                      batch: int, max_epochs: int, stop_accuracy: float, first_order: torch.Tensor,
                      generator: torch.Generator, later_batch: int | None = None,
                      schedule: str = "constant") -> Trajectory:
    """Minibatch training that scores every first-epoch batch before its update; stops at `stop_accuracy` training
    accuracy (checked after each epoch) or after `max_epochs`. Later epochs reshuffle with `generator` and use
    minibatches of `later_batch` (default: `batch`); they only move theta_T, the code is read off the first epoch.
    `schedule` scales the learning rate of epoch e >= 2 by lr_factor(schedule, e, max_epochs); the first epoch (the
    code) always runs at the base rate, so the code does not depend on the epoch budget."""
    n = len(y)
    base = [group["lr"] for group in optimizer.param_groups]
    preq = torch.zeros((), dtype=torch.float64, device=x.device)
    sotl, steps, epoch, interpolated, one_pass = 0.0, 0, 0, False, float("nan")
    for epoch in range(1, max_epochs + 1):
        for group, lr in zip(optimizer.param_groups, base):
            group["lr"] = lr * lr_factor(schedule, epoch, max_epochs)
        order = first_order if epoch == 1 else torch.randperm(n, generator=generator).to(x.device)
        epoch_loss = torch.zeros((), dtype=torch.float64, device=x.device)
        batches, size = 0, batch if epoch == 1 or later_batch is None else later_batch
        for start in range(0, n, size):
            idx = order[start:start + size]
            loss_sum = F.cross_entropy(model(x[idx]), y[idx], reduction="sum")
            if epoch == 1:
                preq += loss_sum.detach()  # theta_{k-1}: the optimizer has not yet seen this batch
            optimizer.zero_grad(set_to_none=True)
            (loss_sum / len(idx)).backward()
            optimizer.step()
            epoch_loss += loss_sum.detach() / len(idx)
            batches += 1
            steps += 1
        sotl += float(epoch_loss) / batches
        if epoch == 1:
            with torch.no_grad():
                one_pass = code_length_bits(model(x), y)
        if accuracy(model, x, y) >= stop_accuracy:
            interpolated = True
            break
    return Trajectory(float(preq) / LN2, one_pass, sotl, epoch, steps, interpolated)


def lr_factor(schedule: str, epoch: int, max_epochs: int) -> float:
    """The learning-rate multiplier of an epoch: 1 in the first epoch; `constant` keeps 1, `cosine` decays from 1 in
    epoch 2 towards 0 at max_epochs (half a cosine), so the last epochs settle into a minimum that fits every label."""
    if schedule == "constant" or epoch <= 1:
        return 1.0
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * (epoch - 2) / max(max_epochs - 1, 1)))
    raise ValueError(f"unknown learning-rate schedule {schedule!r}; use constant or cosine")


@torch.no_grad()
def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    return float((model(x).argmax(dim=1) == y).double().mean())


def regret(preq_bits: float, final_bits: float) -> float:
    """The realised prequential regret R = L_preq - L_fin (bits)."""
    return preq_bits - final_bits


def pac_mdl_bound(train_err: float, regret_bits: float, n: int, delta: float) -> float:
    """Occam / PAC-MDL bound with the regret as the description length:
    err <= err_train + sqrt((R ln 2 + ln(1/delta)) / (2n)). A negative realised R (the final model coding its own
    training labels worse than the online code) is clipped at 0: a description length is never negative."""
    if n <= 0 or not 0 < delta < 1:
        raise ValueError(f"need n > 0 and 0 < delta < 1, got n={n}, delta={delta}")
    return train_err + math.sqrt((max(regret_bits, 0.0) * LN2 + math.log(1.0 / delta)) / (2 * n))


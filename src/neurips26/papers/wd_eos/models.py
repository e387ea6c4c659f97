"""The two architectures: a fully connected net (Cohen et al.'s fc-tanh family) and a small CNN (two conv blocks)."""

from __future__ import annotations

import torch
from torch import nn

from neurips26.common.pipeline.errors import UserError

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU, "elu": nn.ELU}


def _activation(name: str) -> nn.Module:
    if name not in ACTIVATIONS:
        raise UserError(f"wd_eos: activation {name!r} is not one of {', '.join(ACTIVATIONS)}")
    return ACTIVATIONS[name]()


def mlp(in_dim: int, widths: list[int], out_dim: int, activation: str) -> nn.Module:
    layers, prev = [], in_dim
    for width in widths:
        layers += [nn.Linear(prev, width), _activation(activation)]
        prev = width
    return nn.Sequential(*layers, nn.Linear(prev, out_dim))


def cnn(shape: tuple[int, int, int], channels: list[int], out_dim: int, activation: str) -> nn.Module:
    """Conv 3x3 (same padding) + activation + 2x2 max-pool per block, then a linear read-out.
    Input: (n, c * side * side) for an image shape (c, side, side)."""
    prev, side = shape[0], shape[1]
    layers = [nn.Unflatten(1, tuple(shape))]
    for ch in channels:
        layers += [nn.Conv2d(prev, ch, 3, padding=1), _activation(activation), nn.MaxPool2d(2)]
        prev, side = ch, side // 2
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(prev * side * side, out_dim))


def build(arch: str, cfg, shape: tuple[int, int, int], out_dim: int) -> nn.Module:
    """The network for images of `shape` (channels, side, side), fed flattened."""
    if arch == "mlp":
        return mlp(shape[0] * shape[1] * shape[2], list(cfg.mlp.widths), out_dim, cfg.mlp.activation)
    if arch == "cnn":
        return cnn(shape, list(cfg.cnn.channels), out_dim, cfg.cnn.activation)
    raise UserError(f"wd_eos: arch {arch!r} is not one of mlp, cnn")


def square_loss(out: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """0.5 ||f(x) - onehot(y)||^2, averaged over examples (Cohen et al.'s SquaredLoss / n)."""
    target = torch.nn.functional.one_hot(labels, out.shape[1]).to(out.dtype)
    return 0.5 * ((out - target) ** 2).sum(1).mean()

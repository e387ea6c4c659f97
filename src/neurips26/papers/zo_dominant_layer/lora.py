"""LoRA adapters (Hu et al. 2022) on the attention q/v projections, for the MeZO-on-LoRA baseline.

The adapter adds B A x (scaled by alpha / r) to a frozen linear layer; B starts at zero so the model is unchanged at
step 0. Only A and B are perturbed by MeZO.
"""

from __future__ import annotations

import torch


class LoRALinear(torch.nn.Module):
    def __init__(self, base: torch.nn.Linear, rank: int, alpha: float, generator: torch.Generator):
        super().__init__()
        self.base = base
        self.scale = alpha / rank
        device = base.weight.device
        a = torch.randn(rank, base.in_features, generator=generator) / base.in_features**0.5
        self.a = torch.nn.Parameter(a.to(device))
        self.b = torch.nn.Parameter(torch.zeros(base.out_features, rank, device=device))

    def forward(self, x):
        return self.base(x) + (x @ self.a.T @ self.b.T) * self.scale


def add_lora(layers, rank: int, alpha: float, seed: int) -> list[torch.nn.Parameter]:
    """Wrap q_proj and v_proj of every decoder layer; returns the adapter parameters (A, B of each)."""
    generator = torch.Generator().manual_seed(seed)
    params = []
    for layer in layers:
        for name in ("q_proj", "v_proj"):
            wrapped = LoRALinear(getattr(layer.self_attn, name), rank, alpha, generator)
            setattr(layer.self_attn, name, wrapped)
            params += [wrapped.a, wrapped.b]
    return params


def remove_lora(layers) -> None:
    for layer in layers:
        for name in ("q_proj", "v_proj"):
            module = getattr(layer.self_attn, name)
            if isinstance(module, LoRALinear):
                setattr(layer.self_attn, name, module.base)

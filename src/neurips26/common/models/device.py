"""Device choice from the `device` config key: auto | cpu | cuda."""

from __future__ import annotations

from neurips26.common.pipeline.errors import UserError


def resolve_device(preference: str) -> str:
    import torch

    if preference == "cpu":
        return "cpu"
    if preference == "cuda":
        if not torch.cuda.is_available():
            raise UserError("config key 'device' is 'cuda' but torch sees no CUDA device; use device=auto or device=cpu")
        return "cuda"
    if preference == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    raise UserError(f"config key 'device': {preference!r} is not one of auto, cpu, cuda")

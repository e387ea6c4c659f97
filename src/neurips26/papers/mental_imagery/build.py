"""The model and schedule the fine-tuning (experiments.py) and the VLM pretraining (pretrain.py) share: one module both
import, so neither imports the other."""

from __future__ import annotations

import math

from neurips26.papers.mental_imagery import data as puzzles_data
from neurips26.papers.mental_imagery.model import TinyVLM
from neurips26.papers.mental_imagery.puzzles import CANVAS
from neurips26.papers.mental_imagery.tensors import FAMILY_NAMES


def input_patch(cfg) -> int | str:
    """model.patch: the input patch side in pixels, or 'symbols' (the symbolic input, perfect perception)."""
    p = cfg.model.patch
    return "symbols" if str(p) == "symbols" else int(p)


def build_model(cfg, variant: str, n_actions: int) -> TinyVLM:
    m, p = cfg.model, input_patch(cfg)
    n_img, dim = (36, puzzles_data.N_SYMBOLS) if p == "symbols" else ((CANVAS // p) ** 2, p * p * 3)
    return TinyVLM(n_actions, len(FAMILY_NAMES), int(m.d), int(m.layers), int(m.heads), int(cfg.puzzle.max_len), variant,
                   n_img=n_img, patch_dim=dim, grid_pos=bool(m.get("grid_pos", False)),
                   z_embed=str(m.get("z_embed", "shared")))


def lr_factor(step: int, warm: int, cap: int, cosine: bool = True) -> float:
    """The learning-rate multiplier at `step` (0-based): linear warm-up over `warm` steps, then constant or cosine decay
    to 0 at `cap` (the fine-tuning and the VLM pretraining alike)."""
    if step < warm:
        return (step + 1) / warm
    return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, cap - warm))) if cosine else 1.0

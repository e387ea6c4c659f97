"""Puzzle examples as model tensors: the family order, each family's action token ids, and the stacked batch (image
tokens, family ids, action tokens, visual tokens, lengths). Used by the experiments and the pretraining alike."""

from __future__ import annotations

import numpy as np
import torch

from neurips26.papers.mental_imagery import data as puzzles_data
from neurips26.papers.mental_imagery.model import EOS, PAD

FAMILY_NAMES = ["rush_hour", "sokoban", "jigsaw", "rotation", "tangram"]


def action_offsets(families: dict) -> dict[str, int]:
    """Token id of each family's first action (0 and 1 are PAD and EOS)."""
    offsets, start = {}, 2
    for name in FAMILY_NAMES:
        offsets[name] = start
        start += len(families[name].actions)
    return offsets


def tensorize(examples, offsets: dict, T: int, patch: int | str = 4):
    """Stack a list of examples into tensors: image tokens of s_0 (patch x patch pixels each; patch 'symbols': the 36
    one-hot symbols of data.symbols, perfect perception), family ids, tokens (actions, EOS, PAD), visual tokens z of
    s_1..s_T (always 16 patches of 6x6 pixels), lengths."""
    n = len(examples)
    if patch == "symbols":
        img = np.eye(puzzles_data.N_SYMBOLS, dtype=np.float32)[
            np.stack([puzzles_data.symbols(e.family, e.start) for e in examples])]
    else:
        img = np.stack([puzzles_data.patches(e.images[0], patch) for e in examples])
    tokens = np.full((n, T), PAD)
    z = np.zeros((n, T, 16, 108), dtype=np.float32)
    for i, e in enumerate(examples):
        L = len(e.actions)
        tokens[i, :L] = np.array(e.actions) + offsets[e.family]
        tokens[i, L] = EOS
        z[i, :L] = puzzles_data.patches(e.images[1:])
    fam = np.array([FAMILY_NAMES.index(e.family) for e in examples])
    lengths = np.array([len(e.actions) for e in examples])
    return (torch.tensor(img, dtype=torch.float32), torch.tensor(fam), torch.tensor(tokens), torch.tensor(z),
            torch.tensor(lengths))

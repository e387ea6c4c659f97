"""The pretrained backbone of the tiny VLM (patch embedding, grid positions, family embedding, decoder): which weights
it is, and how a freshly built model takes them. Pretraining writes it; every fine-tuned variant and the probes'
pretrained control load it."""

from __future__ import annotations

from neurips26.papers.mental_imagery.model import TinyVLM

BACKBONE = ("patch.", "rows", "cols", "fam.", "decoder.")


def backbone_state(vlm: TinyVLM) -> dict:
    return {k: v.detach().clone() for k, v in vlm.state_dict().items() if k.startswith(BACKBONE)}


def load_backbone(vlm: TinyVLM, state: dict) -> None:
    """Copy the pretrained backbone into a freshly built model (every backbone tensor must be there, same shape)."""
    own = vlm.state_dict()
    keys = {k for k in own if k.startswith(BACKBONE)}
    if keys != set(state):
        raise ValueError(f"pretrained backbone keys differ: {sorted(keys ^ set(state))[:5]}")
    vlm.load_state_dict({**own, **state})

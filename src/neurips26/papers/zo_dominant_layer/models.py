"""The two decoders: the bundled SmolLM2-135M (common/models/llm.py) and a small Llama-config decoder built here, and a
runner that evaluates the label-word loss from any layer on cached residual-stream inputs.

The small decoder (random weights, a word-hash tokenizer) keeps the tiny scale and the tests fast; `plant_outlier`
gives it a massive activation at a chosen layer (one residual channel driven ~1000x above the rest), the case where
the detector's answer is known by construction.
"""

from __future__ import annotations

import zlib
from types import SimpleNamespace

import torch

from neurips26.common.pipeline.errors import UserError


class HashTokenizer:
    """Words -> ids by crc32 (ids 0..2 reserved); enough for a random-weight decoder."""

    pad_token_id = 0

    def __init__(self, vocab: int):
        self.vocab = vocab

    def __call__(self, text: str, add_special_tokens: bool = False):
        ids = [3 + zlib.crc32(w.lower().encode()) % (self.vocab - 3) for w in text.split()]
        return SimpleNamespace(input_ids=ids)


def small_decoder(spec, seed: int):
    """(tokenizer, model): a Llama-config decoder with random weights, spec: vocab, hidden, layers, heads, kv_heads,
    intermediate, plant_layer (-1: none), plant_scale."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=int(spec.vocab), hidden_size=int(spec.hidden), num_hidden_layers=int(spec.layers),
                         num_attention_heads=int(spec.heads), num_key_value_heads=int(spec.kv_heads),
                         intermediate_size=int(spec.intermediate), max_position_embeddings=256,
                         tie_word_embeddings=True, attn_implementation="eager")
    model = LlamaForCausalLM(config).eval()
    if int(spec.plant_layer) >= 0:
        plant_outlier(model, int(spec.plant_layer), float(spec.plant_scale))
    return HashTokenizer(int(spec.vocab)), model


def plant_outlier(model, layer: int, scale: float, channel: int = 0) -> None:
    """Make decoder layer `layer` write a massive value into residual channel `channel` (its MLP output row scaled)."""
    with torch.no_grad():
        model.model.layers[layer].mlp.down_proj.weight[channel] *= scale


def load(name: str, cfg, seed: int = 0, folder=None, root=None):
    """(tokenizer, model); for smollm2 from `folder` (the job's exported copy, common/llm.export_smollm2) if given; a
    key of cfg.hub_models (the paper's 7-8B decoders, scale=paper) from the hub at its pinned commit, its cache under
    `root`/data (common/models/hub_llm.py), in cfg.hub_dtype."""
    if name == "smollm2":
        from neurips26.common.models.llm import load_exported, load_smollm2

        return load_exported(folder) if folder is not None else load_smollm2()
    if name == "small_decoder":
        return small_decoder(cfg.small_decoder, seed)
    hub = cfg.get("hub_models") or {}
    if name in hub:
        from neurips26.common.models.hub_llm import load_hub_causal_lm

        if root is None:
            raise UserError(f"model {name!r} comes from the hub: the stage must give the data root for its cache")
        return load_hub_causal_lm(str(hub[name]), root, "cpu", str(cfg.hub_dtype))
    raise UserError(f"unknown zo_dominant_layer model {name!r}; known: smollm2, small_decoder, {', '.join(hub)}")


class Runner:
    """Label-word cross-entropy of examples (left padded, fixed length) computed from layer `start` upwards, on the
    residual stream cached below it. Only the last position's logits, and only the label words' rows of the LM head."""

    def __init__(self, model, ids, mask, label_ids: list[int]):
        from transformers.masking_utils import create_causal_mask

        self.model, self.ids, self.mask = model, ids, mask
        self.label_ids = torch.tensor(label_ids, device=ids.device)
        self.position = (mask.cumsum(1) - 1).clamp(min=0)
        inner = model.model
        with torch.no_grad():
            embeds = inner.embed_tokens(ids)
            self.causal = create_causal_mask(config=model.config, inputs_embeds=embeds, attention_mask=mask,
                                             cache=None, position_ids=self.position)
            self.rotary = inner.rotary_emb(embeds, position_ids=self.position)
        self.cache: dict[int, torch.Tensor] = {}

    @property
    def n_layers(self) -> int:
        return len(self.model.model.layers)

    def cache_inputs(self, layers) -> None:
        """Residual stream at the input of each layer in `layers` (the frozen prefix, computed once)."""
        from neurips26.common.models.llm import residual_stream

        states = residual_stream(self.model, self.ids, self.mask, self.position)
        self.cache = {int(layer): states[int(layer)].clone() for layer in layers}
        self.output = states[-1].clone()  # the last layer's raw output (for the detector)

    def logits(self, start: int = 0, rows=None, grad: bool = False) -> torch.Tensor:
        """(n, K) label-word logits; start = 0 recomputes the embeddings (they may be perturbed)."""
        rows = slice(None) if rows is None else rows
        inner = self.model.model
        with torch.set_grad_enabled(grad):
            h = inner.embed_tokens(self.ids[rows]) if start == 0 else self.cache[start][rows]
            mask = None if self.causal is None else self.causal[rows]
            rotary = tuple(r[rows] for r in self.rotary)
            for layer in inner.layers[start:]:
                h = layer(h, attention_mask=mask, position_embeddings=rotary, position_ids=self.position[rows])
                h = h[0] if isinstance(h, tuple) else h
            last = inner.norm(h[:, -1])
            return last @ self.model.lm_head.weight[self.label_ids].T

    def loss(self, y: torch.Tensor, start: int = 0, rows=None, grad: bool = False) -> torch.Tensor:
        rows_y = y if rows is None else y[rows]
        return torch.nn.functional.cross_entropy(self.logits(start, rows, grad), rows_y)

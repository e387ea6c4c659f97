"""Hybrid block retrieval: BM25 (rank-bm25, Okapi) plus MiniLM cosine similarity, each z-scored over the document's
blocks and mixed with weight `alpha` on the dense part. Query embeddings are cached (agents repeat queries)."""

from __future__ import annotations

import re

import numpy as np

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class Encoder:
    """all-MiniLM-L6-v2 through the shared `common.minilm` (sha256-checked files, mean-pooled, normalised), with a
    cache: agents repeat queries."""

    def __init__(self, max_tokens: int = 128):
        self.max_tokens, self.cache = max_tokens, {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        from neurips26.common.models.minilm import embed

        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            self.cache.update(zip(todo, embed(todo, self.max_tokens)))
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

"""The ensemble's prediction rule: MAP of p(y | prediction pattern of the selected models).

p(y | pattern) is estimated from calibration counts, smoothed towards a weighted majority vote:
    p(y | s) = (count(y, s) + alpha * q(y | s)) / (count(s) + alpha),
where q is a tempered log-odds weighted vote (the naive-Bayes posterior under symmetric errors: weight
log((K-1) acc / (1 - acc)) per model, temperature fitted on the calibration data). Unseen patterns get q itself, which is
the brief's "back off to weighted majority vote". The same rule serves every selection method, so methods differ only in
which models they pick.
"""

from __future__ import annotations

import numpy as np

TEMPERATURES = np.geomspace(0.05, 1.0, 14)


def folds(n: int, n_folds: int):
    """Interleaved folds (the rows are already in random order): [(train_idx, test_idx), ...]."""
    index = np.arange(n)
    return [(index[index % n_folds != f], index[index % n_folds == f]) for f in range(n_folds)]


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(1, keepdims=True))
    return z / z.sum(1, keepdims=True)


class PatternAggregator:
    def __init__(self, n_classes: int, alpha: float = 2.0):
        self.k, self.alpha = n_classes, alpha

    def fit(self, y: np.ndarray, preds: np.ndarray) -> PatternAggregator:
        k = self.k
        self.prior = np.log((np.bincount(y, minlength=k) + 1.0) / (len(y) + k))
        acc = ((preds == y[:, None]).sum(0) + 1.0) / (len(y) + 2.0)
        self.weights = np.log(np.maximum(k - 1, 1) * acc / (1.0 - acc))
        votes = self._vote_logits(preds)
        logits = votes[None] * TEMPERATURES[:, None, None] + self.prior  # (temperatures, n, K)
        top = logits.max(2, keepdims=True)
        log_norm = (top + np.log(np.exp(logits - top).sum(2, keepdims=True)))[..., 0]
        losses = (log_norm - logits[:, np.arange(len(y)), y]).mean(1)
        self.temperature = float(TEMPERATURES[int(np.argmin(losses))])
        keys = pattern_keys(preds, k)
        if not preds.shape[1]:
            self.patterns, self.keys, codes = np.zeros((1, 0), dtype=preds.dtype), None, np.zeros(len(y), dtype=np.int64)
        elif keys is not None:  # one integer per pattern: a 1-D unique, much faster than unique rows
            self.patterns = None
            self.keys, codes = np.unique(keys, return_inverse=True)
        else:
            self.keys = None
            self.patterns, codes = np.unique(preds, axis=0, return_inverse=True)
        codes = codes.reshape(-1)
        self.counts = np.zeros((len(self.keys) if self.keys is not None else len(self.patterns), k))
        np.add.at(self.counts, (codes, y), 1.0)
        return self

    def _vote_logits(self, preds: np.ndarray) -> np.ndarray:
        onehot = preds[:, :, None] == np.arange(self.k)[None, None, :]
        return (onehot * self.weights[None, :, None]).sum(1)

    def backoff(self, preds: np.ndarray) -> np.ndarray:
        return _softmax(self._vote_logits(preds) * self.temperature + self.prior)

    def predict_proba(self, preds: np.ndarray) -> np.ndarray:
        q = self.backoff(preds)
        counts = np.zeros_like(q)
        if self.keys is not None:  # rows with a label outside 0..K-1 are unseen patterns
            keys = pattern_keys(np.clip(preds, 0, self.k - 1), self.k)
            pos = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
            seen = (self.keys[pos] == keys) & ((preds >= 0) & (preds < self.k)).all(1)
            counts[seen] = self.counts[pos[seen]]
        elif self.patterns is not None and len(self.patterns) and preds.shape[1]:
            both = np.concatenate([self.patterns, preds])
            codes = np.unique(both, axis=0, return_inverse=True)[1].reshape(-1)
            lookup = np.full(codes.max() + 1, -1)
            lookup[codes[: len(self.patterns)]] = np.arange(len(self.patterns))
            seen = lookup[codes[len(self.patterns):]]
            counts[seen >= 0] = self.counts[seen[seen >= 0]]
        elif preds.shape[1] == 0:
            counts[:] = self.counts[0]
        return (counts + self.alpha * q) / (counts.sum(1, keepdims=True) + self.alpha)

    def predict(self, preds: np.ndarray) -> np.ndarray:
        return self.predict_proba(preds).argmax(1)


def pattern_keys(preds: np.ndarray, n_classes: int) -> np.ndarray | None:
    """One int64 per row that identifies its prediction pattern (base-K digits), or None when K^|S| would overflow or
    a label lies outside 0..K-1 (then the aggregator falls back to unique rows)."""
    if not preds.shape[1] or preds.shape[1] * np.log2(max(n_classes, 2)) >= 62:
        return None
    if preds.min() < 0 or preds.max() >= n_classes:
        return None
    return preds.astype(np.int64) @ (np.int64(max(n_classes, 2)) ** np.arange(preds.shape[1], dtype=np.int64))


def majority_vote(preds: np.ndarray, n_classes: int) -> np.ndarray:
    """Plain plurality vote; ties go to the smallest label (deterministic)."""
    votes = (preds[:, :, None] == np.arange(n_classes)[None, None, :]).sum(1)
    return votes.argmax(1)

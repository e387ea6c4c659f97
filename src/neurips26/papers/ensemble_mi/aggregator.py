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
        self.patterns, codes = (np.unique(preds, axis=0, return_inverse=True) if preds.shape[1]
                                else (np.zeros((1, 0), dtype=preds.dtype), np.zeros(len(y), dtype=np.int64)))
        codes = codes.reshape(-1)
        self.counts = np.zeros((len(self.patterns), k))
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
        if len(self.patterns) and preds.shape[1]:
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


def majority_vote(preds: np.ndarray, n_classes: int) -> np.ndarray:
    """Plain plurality vote; ties go to the smallest label (deterministic)."""
    votes = (preds[:, :, None] == np.arange(n_classes)[None, None, :]).sum(1)
    return votes.argmax(1)

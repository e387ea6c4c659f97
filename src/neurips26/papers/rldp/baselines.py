"""The routers RLDP is compared with: a ridge probe trained on many labelled problems, rollout agreement (k sampled
answers; their tokens count as cost), prompt length, random scores."""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr


def ridge_fit(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Ridge regression on standardised features: (weights, intercept, feature mean, feature scale)."""
    mu, sd = x.mean(0), x.std(0) + 1e-8
    z = (x - mu) / sd
    w = np.linalg.solve(z.T @ z + alpha * np.eye(z.shape[1]), z.T @ (y - y.mean()))
    return w, float(y.mean()), mu, sd


def ridge_predict(model, x: np.ndarray) -> np.ndarray:
    w, b, mu, sd = model
    return (x - mu) / sd @ w + b


class RidgeProbe:
    """The trained baseline: ridge on the hidden state of one layer, regressing the difficulty label (MSE, as in the
    difficulty-probing papers). Layer and alpha are chosen on a held-out quarter of the probe's own training set."""

    def __init__(self, states: np.ndarray, y: np.ndarray, alphas=(0.1, 1.0, 10.0, 100.0), rng=None):
        rng = rng or np.random.default_rng(0)
        n = len(y)
        perm = rng.permutation(n)
        val, fit = perm[: n // 4], perm[n // 4:]
        best = (-np.inf, 0, alphas[0])
        for layer in range(states.shape[1]):
            for alpha in alphas:
                pred = ridge_predict(ridge_fit(states[fit, layer], y[fit], alpha), states[val, layer])
                rho = spearmanr(pred, y[val]).statistic if np.std(pred) > 0 else -np.inf
                if rho > best[0]:
                    best = (rho, layer, alpha)
        self.layer, self.alpha = best[1], best[2]
        self.model = ridge_fit(states[:, self.layer], y, self.alpha)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        return ridge_predict(self.model, states[:, self.layer])


def rollout_agreement(answers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(difficulty score = 1 - agreement rate, majority answer) of (n, k) sampled answers (-1 marks a malformed one)."""
    n, k = answers.shape
    majority, agree = np.empty(n, dtype=np.int64), np.empty(n)
    for i, row in enumerate(answers):
        values, counts = np.unique(row[row >= 0], return_counts=True)
        if len(values) == 0:
            majority[i], agree[i] = -1, 0.0
        else:
            majority[i], agree[i] = values[np.argmax(counts)], counts.max() / k
    return 1.0 - agree, majority

"""Linear probes from hidden states to board cells: ridge regression onto one-hot cell classes, argmax per cell."""

from __future__ import annotations

import numpy as np


def fit_ridge(X: np.ndarray, cells: np.ndarray, n_classes: int, alpha: float):
    """Ridge from standardized features X (N, d) to one-hot cells (N, C, K). Returns a predict(X) -> (N, C) function."""
    mu, sd = X.mean(0), X.std(0) + 1e-6
    Z = np.hstack([(X - mu) / sd, np.ones((len(X), 1))])
    Y = np.eye(n_classes)[cells].reshape(len(X), -1)
    W = np.linalg.solve(Z.T @ Z + alpha * np.eye(Z.shape[1]), Z.T @ Y)

    def predict(Xn: np.ndarray) -> np.ndarray:
        Zn = np.hstack([(Xn - mu) / sd, np.ones((len(Xn), 1))])
        return (Zn @ W).reshape(len(Xn), cells.shape[1], n_classes).argmax(-1)

    return predict


def cell_accuracy(pred: np.ndarray, true: np.ndarray) -> float:
    return float((pred == true).mean())

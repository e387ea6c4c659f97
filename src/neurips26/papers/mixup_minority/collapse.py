"""Neural-collapse measures of trained features (Papyan, Han, Donoho 2020; minority collapse, Fang et al. 2021).

Read on TRAINING features at the end of training. Class means are centred by the mean of the K class means (so a
rare class weighs as much as a frequent one, as in the imbalanced-collapse literature); NC1 = tr(S_W S_B^+) / K with
S_W the average within-class covariance and S_B the covariance of the centred class means.
"""

from __future__ import annotations

import numpy as np


def class_geometry(feats: np.ndarray, y: np.ndarray, classes: int) -> dict:
    """{'class_means': centred K x d class means, 'nc1': within-class variability relative to between-class}."""
    means = np.stack([feats[y == c].mean(0) for c in range(classes)])
    centred = means - means.mean(0)
    within = np.zeros((feats.shape[1], feats.shape[1]))
    for c in range(classes):
        dev = feats[y == c] - means[c]
        within += dev.T @ dev / len(dev)
    within /= classes
    between = centred.T @ centred / classes
    nc1 = float(np.trace(within @ np.linalg.pinv(between, rcond=1e-6)) / classes)
    return {"class_means": centred, "nc1": nc1}

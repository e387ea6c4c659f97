"""Frozen evaluation: an L2 logistic-regression probe, 5-fold stratified cross-validation, mean AUROC over folds.

Written with NumPy (Newton's method on sklearn's objective, C * sum log-loss + |w|^2 / 2, intercept unpenalised) so the
training jobs do not pay scikit-learn's (or scipy.stats') import; a test checks it against sklearn's LogisticRegression.
"""

from __future__ import annotations

import numpy as np


def auroc(y: np.ndarray, score: np.ndarray) -> float:
    """Mann-Whitney AUROC: P(score of a positive > score of a negative), ties counting one half (mid-ranks)."""
    y = np.asarray(y).astype(bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = mid_ranks(np.asarray(score, dtype=float))
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def mid_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of their ranks (scipy's rankdata 'average', without its import)."""
    unique, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return ((ends - counts + 1 + ends) / 2.0)[inverse]


def stratified_folds(labels: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Fold index of every sample: each class shuffled, then dealt round-robin (so class balance holds per fold)."""
    rng = np.random.default_rng(seed)
    fold = np.empty(len(labels), dtype=int)
    for value in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == value))
        fold[members] = (np.arange(len(members)) + rng.integers(folds)) % folds
    return fold


def fit_logistic(x: np.ndarray, y: np.ndarray, l2_c: float, iterations: int = 50) -> np.ndarray:
    """Weights [w; b] minimising C * sum log-loss + |w|^2 / 2 (Newton's method; the objective is strictly convex)."""
    design = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(design.shape[1])
    penalty = np.r_[np.ones(x.shape[1]), 0.0] / l2_c
    for _ in range(iterations):
        p = 0.5 * (1.0 + np.tanh(0.5 * (design @ beta)))  # the logistic function, overflow-free
        gradient = design.T @ (p - y) + penalty * beta
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-10)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return beta


def logistic_scores(train_x, train_y, test_x, l2_c: float) -> np.ndarray:
    """Standardise with the training fold's statistics, fit the probe, return test decision values."""
    mu, sd = train_x.mean(0), train_x.std(0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    beta = fit_logistic((train_x - mu) / sd, np.asarray(train_y, float), l2_c)
    return np.hstack([(test_x - mu) / sd, np.ones((len(test_x), 1))]) @ beta


def cv_auroc(features: np.ndarray, labels: np.ndarray, folds: int, l2_c: float, seed: int, fit_predict=None,
             test_features: np.ndarray | None = None) -> float:
    """Mean held-out AUROC over stratified folds. fit_predict(train_x, train_y, test_x) -> scores (default: the probe).
    With `test_features` (same samples, other features: e.g. embeddings of a reduced panel) the probe is fitted on
    `features` and scored on `test_features` of the held-out fold: a probe trained once and applied at test time."""
    fit_predict = fit_predict or (lambda a, b, c: logistic_scores(a, b, c, l2_c))
    test_features = features if test_features is None else test_features
    fold = stratified_folds(labels, folds, seed)
    scores = [auroc(labels[fold == k], fit_predict(features[fold != k], labels[fold != k], test_features[fold == k]))
              for k in range(folds)]
    return float(np.mean(scores))


def permutation_null(features: np.ndarray, labels: np.ndarray, folds: int, l2_c: float, seed: int,
                     permutations: np.ndarray) -> np.ndarray:
    """The label-permutation null of cv_auroc: the same cross-validated AUROC (same folds seed, same probe) on each row
    of `permutations` (index arrays) applied to the labels. Cross-validated AUROC on labels independent of the features
    is biased below 0.5 at small n (each held-out fold's class balance is the complement of its training fold's), so a
    control is judged against this distribution, not against 0.5."""
    labels = np.asarray(labels)
    return np.array([cv_auroc(features, labels[p], folds, l2_c, seed) for p in permutations])


def null_permutations(n: int, count: int, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """`count` label permutations of n samples from a fixed generator: the same draws for every run seed, so the null
    of the mean over seeds pairs permutation k across seeds (the observed value is one label vector seen by every seed).

    With `strata` (one value per sample, e.g. the study), each permutation shuffles the samples only within their
    stratum. The null must be exchangeable with how the labels were drawn: labels balanced within each study (the
    synthetic universe's design) keep their per-study counts under a within-study permutation and only under it. An
    unrestricted permutation also draws per-study imbalances the design never makes; on embeddings that carry study
    identity those shift the null's CV AUROC upwards (README: negative control), so a design-balanced labelling lands
    low in it more often than the nominal rate."""
    rng = np.random.default_rng([seed, n])
    if strata is None:
        return np.stack([rng.permutation(n) for _ in range(count)]) if count else np.zeros((0, n), int)
    strata = np.asarray(strata)
    if len(strata) != n:
        raise ValueError(f"strata has {len(strata)} entries for {n} samples")
    groups = [np.flatnonzero(strata == value) for value in np.unique(strata)]
    out = np.tile(np.arange(n), (count, 1))
    for row in out:
        for members in groups:
            row[members] = members[rng.permutation(len(members))]
    return out

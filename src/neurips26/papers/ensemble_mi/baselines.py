"""The brief's baselines at equal budget (unit query costs): each returns the ordered picks; a budget b takes the first b.

top_k by calibration accuracy; random_k; greedy by the ensemble's cross-validated calibration accuracy (the same
aggregator as the method, so the comparison isolates the selection criterion); accuracy + diversity (accuracy plus
lambda x mean pairwise disagreement with the models already picked). all_vote and best_single are fixed sets.
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.ensemble_mi.aggregator import PatternAggregator, folds
from neurips26.papers.ensemble_mi.method import greedy


def accuracies(y: np.ndarray, preds: np.ndarray) -> np.ndarray:
    return (preds == y[:, None]).mean(0)


def top_k(y, preds, max_budget: int) -> list[int]:
    return [int(m) for m in np.argsort(-accuracies(y, preds), kind="stable")[:max_budget]]


def random_k(n_models: int, max_budget: int, rng: np.random.Generator) -> list[int]:
    return [int(m) for m in rng.permutation(n_models)[:max_budget]]


def cv_accuracy(y, preds, n_classes: int, alpha: float, n_folds: int = 5) -> float:
    correct = 0
    for train, test in folds(len(y), n_folds):
        agg = PatternAggregator(n_classes, alpha).fit(y[train], preds[train])
        correct += int((agg.predict(preds[test]) == y[test]).sum())
    return correct / len(y)


def greedy_accuracy(y, preds, n_classes: int, max_budget: int, alpha: float) -> list[int]:
    # a tiny bonus for individual accuracy breaks the many exact ties of a set accuracy on few examples
    acc = accuracies(y, preds)
    return greedy(lambda s: cv_accuracy(y, preds[:, s], n_classes, alpha) + 1e-6 * acc[s[-1]],
                  np.ones(preds.shape[1]), max_budget)[0]


def accuracy_diversity(y, preds, max_budget: int, weight: float) -> list[int]:
    acc = accuracies(y, preds)
    disagree = (preds[:, :, None] != preds[:, None, :]).mean(0)

    def score(subset: list[int]) -> float:
        new, old = subset[-1], subset[:-1]
        return acc[new] + (weight * disagree[new, old].mean() if old else 0.0)

    return greedy(score, np.ones(preds.shape[1]), max_budget)[0]


def best_single(y, preds) -> list[int]:
    return top_k(y, preds, 1)


def oracle_forward(cal, test, n_classes: int, max_budget: int, alpha: float) -> list[int]:
    """Not a selection method: forward selection by the *test* accuracy of the aggregator fit on calibration (it peeks
    at the test half). Its accuracy at budget b bounds from above (approximately: forward, not exhaustive) what a
    selection from this pool can reach: the pool's headroom over top-k and over the best member."""
    (yc, pc), (yt, pt) = cal, test

    def score(subset: list[int]) -> float:
        agg = PatternAggregator(n_classes, alpha).fit(yc, pc[:, subset])
        return float((agg.predict(pt[:, subset]) == yt).mean())

    return greedy(score, np.ones(pc.shape[1]), max_budget)[0]

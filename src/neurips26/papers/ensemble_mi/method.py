"""Greedy mutual-information selection under a query budget (the paper's method).

S = {}; repeat: among the models whose query cost still fits the budget, add argmax_m I_hat(Y; Yhat_{S + m}), until
nothing fits. With unit costs the selection for budget b is the first b picks of the selection for any larger budget,
so one path serves the whole budget sweep (`greedy_path`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from neurips26.papers.ensemble_mi.information import estimate

Score = Callable[[list[int]], float]


def greedy(score: Score, costs: np.ndarray, budget: float) -> tuple[list[int], list[float]]:
    """Greedy maximisation of a set function under a knapsack budget; returns the picks and the score after each."""
    chosen: list[int] = []
    scores: list[float] = []
    spent = 0.0
    while True:
        fits = [m for m in range(len(costs)) if m not in chosen and spent + costs[m] <= budget + 1e-9]
        if not fits:
            return chosen, scores
        values = [score(chosen + [m]) for m in fits]
        best = int(np.argmax(values))  # first maximiser: ties go to the lower model index (deterministic)
        chosen.append(fits[best])
        scores.append(float(values[best]))
        spent += costs[fits[best]]


def mi_score(y: np.ndarray, preds: np.ndarray, n_classes: int, estimator: str, alpha: float) -> Score:
    """S -> I_hat(Y; Yhat_S) on the calibration data, memoised (baselines and reports reuse the same sets)."""
    cache: dict[tuple[int, ...], float] = {}

    def score(subset: list[int]) -> float:
        key = tuple(sorted(subset))
        if key not in cache:
            cache[key] = estimate(estimator, y, preds[:, list(key)], n_classes, alpha)
        return cache[key]

    return score


def greedy_path(y, preds, n_classes: int, max_budget: int, estimator: str, alpha: float) -> tuple[list[int], list[float]]:
    """Unit-cost greedy MI picks up to max_budget models (prefixes are the selections of smaller budgets)."""
    score = mi_score(y, preds, n_classes, estimator, alpha)
    return greedy(score, np.ones(preds.shape[1]), max_budget)

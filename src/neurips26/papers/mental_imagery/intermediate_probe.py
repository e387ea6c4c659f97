"""The probe the claim `probes_decode_state` reads (issue #64 item 2): does the hidden state after an action hold the
intermediate board, beyond what the start board and the goal already give away?

- Only strictly intermediate states: s_t after action t of a puzzle with T actions, t < T. The final state is left out:
  for rotation (the target is drawn in the image) and jigsaw (the solved order is coded in the colours) it can be read
  from the input without imagining any move.
- Scored on the cells that differ from s_0 ("changed-cell accuracy", pooled over the held-out states), and as
  exact-board accuracy. A probe that copies s_0 scores 0 on both; cells no action touches cannot inflate the score.
- Every probe reads [one-hot s_0, features]; the controls read [s_0] alone (start_only) and [s_0, one-hot goal board
  s_T] (goal_only: whatever a model could know without following the moves).
- The layer of a hidden-state probe is chosen on held-out fit puzzles (the last third of them), never on the test
  puzzles; the probe is then refit on all fit puzzles and scored on the test puzzles.
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.mental_imagery.probes import fit_ridge

VALIDATION_SHARE = 1 / 3  # of the fit puzzles: chooses a hidden-state probe's layer


def intermediate_steps(examples) -> list[tuple[int, int]]:
    """(puzzle index, t) of every strictly intermediate state s_t, 1 <= t < T (T = the puzzle's number of actions)."""
    return [(i, t) for i, e in enumerate(examples) for t in range(1, len(e.actions))]


def boards(examples, steps) -> dict[str, np.ndarray]:
    """The boards of each step: start s_0, true s_t and goal s_T, each (N, cells)."""
    return {"start": np.stack([examples[i].cells[0] for i, _ in steps]),
            "true": np.stack([examples[i].cells[t] for i, t in steps]),
            "goal": np.stack([examples[i].cells[len(examples[i].actions)] for i, _ in steps])}


def changed_accuracy(pred: np.ndarray, true: np.ndarray, start: np.ndarray) -> float:
    """The share of the cells that differ from s_0 that the probe gets right (NaN when no cell changed)."""
    changed = true != start
    return float((pred[changed] == true[changed]).mean()) if changed.any() else float("nan")


def exact_accuracy(pred: np.ndarray, true: np.ndarray) -> float:
    return float((pred == true).all(axis=1).mean()) if len(true) else float("nan")


def _score(X, b, fit, test, n_classes, alpha) -> tuple[float, float]:
    predict = fit_ridge(X[fit], b["true"][fit], n_classes, alpha)
    pred = predict(X[test])
    return changed_accuracy(pred, b["true"][test], b["start"][test]), exact_accuracy(pred, b["true"][test])


def _choose_layer(layers: list[np.ndarray], b, fit_part, validation, n_classes, alpha) -> int:
    """The layer whose probe, fitted on the first part of the fit puzzles, scores best on the rest (changed cells)."""
    scores = [_score(X, b, fit_part, validation, n_classes, alpha)[0] for X in layers]
    scores = [-1.0 if np.isnan(s) else s for s in scores]
    return int(np.argmax(scores))


def probe_scores(features: dict[str, np.ndarray], examples, n_fit: int, n_classes: int, alpha: float,
                 code_dim: int, seed: int) -> list[tuple[str, int, float, float, int]]:
    """(kind, layer, changed-cell accuracy, exact-board accuracy, held-out states) for each hidden-state kind of
    `features` (kind -> (layers, puzzles, T, d) hidden states at the action tokens, experiments.hidden_at_actions) and
    the controls: copy, start_only, goal_only, oracle (s_t given) and random_code (the positive control: a fixed random
    linear code of s_t with as many numbers as a hidden state). `examples`: the n_fit fit puzzles, then the test ones."""
    steps = intermediate_steps(examples)
    puzzle = np.array([i for i, _ in steps], dtype=int)
    fit, test = puzzle < n_fit, puzzle >= n_fit
    if not fit.any() or not test.any():
        return []
    validation = fit & (puzzle >= n_fit * (1 - VALIDATION_SHARE))
    fit_part = fit & ~validation
    b = boards(examples, steps)
    hot = {name: np.eye(n_classes)[board].reshape(len(steps), -1) for name, board in b.items()}
    start = b["start"][test]
    rows = [("copy", -1, changed_accuracy(start, b["true"][test], start), exact_accuracy(start, b["true"][test]),
             int(test.sum()))]
    code = np.random.default_rng([seed, 104729]).normal(size=(hot["true"].shape[1], code_dim))
    controls = {"start_only": hot["start"], "goal_only": np.hstack([hot["start"], hot["goal"]]),
                "oracle": np.hstack([hot["start"], hot["true"]]),
                "random_code": np.hstack([hot["start"], hot["true"] @ code])}
    for kind, X in controls.items():
        rows.append((kind, 0, *_score(X, b, fit, test, n_classes, alpha), int(test.sum())))
    for kind, H in features.items():
        layers = [np.hstack([hot["start"], np.stack([H[layer, i, t - 1] for i, t in steps])])
                  for layer in range(H.shape[0])]
        choosable = fit_part.any() and validation.any()
        layer = _choose_layer(layers, b, fit_part, validation, n_classes, alpha) if choosable else 0
        rows.append((kind, layer, *_score(layers[layer], b, fit, test, n_classes, alpha), int(test.sum())))
    return rows

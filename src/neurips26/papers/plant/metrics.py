"""XMC metrics: P@k, nDCG@k (binary gains), micro-/macro-F1 at a threshold, macro-F1 over a label subset.
Macro averages run over the labels with at least one positive in the evaluated documents."""

from __future__ import annotations

import numpy as np


def precision_at(scores: np.ndarray, Y: np.ndarray, k: int) -> float:
    top = np.argsort(-scores, 1, kind="stable")[:, :k]
    return float(np.take_along_axis(Y, top, 1).sum(1).mean() / k)


def ndcg_at(scores: np.ndarray, Y: np.ndarray, k: int) -> float:
    top = np.argsort(-scores, 1, kind="stable")[:, :k]
    disc = 1.0 / np.log2(np.arange(k) + 2.0)
    dcg = (np.take_along_axis(Y, top, 1) * disc).sum(1)
    ideal = np.array([disc[:min(int(n), k)].sum() for n in Y.sum(1)])
    keep = ideal > 0
    return float((dcg[keep] / ideal[keep]).mean())


def label_f1(pred: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """(L,) F1 per label (NaN for labels without positives in Y)."""
    tp = (pred * Y).sum(0)
    denom = pred.sum(0) + Y.sum(0)
    f1 = np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 0.0)
    return np.where(Y.sum(0) > 0, f1, np.nan)


def micro_f1(pred: np.ndarray, Y: np.ndarray) -> float:
    tp = (pred * Y).sum()
    return float(2 * tp / max(pred.sum() + Y.sum(), 1))


def macro_f1(pred: np.ndarray, Y: np.ndarray, subset: np.ndarray | None = None) -> float:
    f1 = label_f1(pred, Y)
    if subset is not None:
        f1 = f1[subset]
    return float(np.nanmean(f1)) if np.isfinite(f1).any() else float("nan")


def best_threshold(probs: np.ndarray, Y: np.ndarray, grid) -> float:
    """The global threshold of `grid` with the best micro-F1 on (probs, Y) (the dev split)."""
    return float(max(grid, key=lambda t: micro_f1((probs >= t).astype(np.float32), Y)))


def evaluate(probs: np.ndarray, Y: np.ndarray, threshold: float, rare: np.ndarray) -> dict:
    pred = (probs >= threshold).astype(np.float32)
    return {"p1": precision_at(probs, Y, 1), "p3": precision_at(probs, Y, 3), "p5": precision_at(probs, Y, 5),
            "ndcg3": ndcg_at(probs, Y, 3), "ndcg5": ndcg_at(probs, Y, 5), "micro_f1": micro_f1(pred, Y),
            "macro_f1": macro_f1(pred, Y), "macro_f1_rare": macro_f1(pred, Y, rare),
            "macro_f1_frequent": macro_f1(pred, Y, ~rare), "threshold": threshold}


DEV_SCORES = ("p5_micro", "macro", "p5_micro_macro")


def dev_score(probs: np.ndarray, Y: np.ndarray, grid, kind: str = "p5_micro") -> float:
    """The early-stopping score on dev, at the dev-best micro-F1 threshold t of `grid`: p5_micro = P@5 + micro-F1
    (rounds 1-2); macro = macro-F1 (issue #14 round 3: the rare labels, 80% of the macro average, count);
    p5_micro_macro = the sum of the three."""
    if kind not in DEV_SCORES:
        raise ValueError(f"decoder.dev_score must be one of {DEV_SCORES}, not {kind!r}")
    pred = (probs >= best_threshold(probs, Y, grid)).astype(np.float32)
    p5_micro = precision_at(probs, Y, 5) + micro_f1(pred, Y)
    macro = macro_f1(pred, Y)
    return {"p5_micro": p5_micro, "macro": macro, "p5_micro_macro": p5_micro + macro}[kind]

"""Mutual information between the label and a set of model predictions, in bits.

Two estimators from labelled calibration data, both validated against exact values (tests, tables/estimator.csv):
- plug-in with the Miller-Madow correction on the joint counts of (label, prediction pattern): unbiased to first order
  while the number of cells is small next to n;
- cross-validated conditional entropy: H(Y) - held-out log loss of the pattern aggregator (aggregator.py), which backs
  off to a weighted vote on patterns it has not seen. It never rewards memorised patterns, so it stays usable when
  K^|S| outgrows n (then it is a lower bound in expectation, as any cross-entropy is an upper bound on H(Y|Yhat_S)).
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.ensemble_mi.aggregator import PatternAggregator, folds


def pattern_codes(preds: np.ndarray) -> np.ndarray:
    """One integer per row of an (n, |S|) prediction matrix: equal rows, equal codes (0..distinct-1)."""
    if preds.shape[1] == 0:
        return np.zeros(len(preds), dtype=np.int64)
    return np.unique(preds, axis=0, return_inverse=True)[1].reshape(-1)


def entropy_bits(counts: np.ndarray, miller_madow: bool = False) -> float:
    """Plug-in entropy of a histogram; Miller-Madow adds (nonzero cells - 1) / (2 n ln 2)."""
    counts = np.asarray(counts, dtype=float).ravel()
    counts = counts[counts > 0]
    n = counts.sum()
    p = counts / n
    h = float(-(p * np.log2(p)).sum())
    if miller_madow:
        h += (len(counts) - 1) / (2.0 * n * np.log(2.0))
    return h


def plugin_mi(y: np.ndarray, preds: np.ndarray, miller_madow: bool = True) -> float:
    """I(Y; Yhat_S) = H(Y) + H(Yhat_S) - H(Y, Yhat_S) from empirical counts (each entropy corrected when asked)."""
    codes = pattern_codes(preds)
    joint = codes * (int(y.max()) + 1) + y
    h = [entropy_bits(np.bincount(v), miller_madow) for v in (y, codes, joint)]
    return h[0] + h[1] - h[2]


def plugin_mi_se(y: np.ndarray, preds: np.ndarray) -> float:
    """Delta-method standard error (bits) of the plug-in MI: sd of the pointwise information
    log2 p(y, s) / (p(y) p(s)) over the n rows, divided by sqrt(n) (the asymptotic sd of the plug-in)."""
    codes = pattern_codes(preds)
    k = int(y.max()) + 1
    joint = codes * k + y
    n = len(y)
    p_joint, p_code, p_y = (np.bincount(v)[v] / n for v in (joint, codes, y))
    pointwise = np.log2(p_joint / (p_code * p_y))
    return float(pointwise.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")


def cv_mi(y: np.ndarray, preds: np.ndarray, n_classes: int, alpha: float, n_folds: int = 5) -> float:
    """H(Y) (Miller-Madow) minus the n_folds-fold cross-validated log loss (bits) of the pattern aggregator."""
    loss = np.empty(len(y))
    for train, test in folds(len(y), n_folds):
        agg = PatternAggregator(n_classes, alpha).fit(y[train], preds[train])
        loss[test] = -np.log2(agg.predict_proba(preds[test])[np.arange(len(test)), y[test]])
    return entropy_bits(np.bincount(y, minlength=n_classes), miller_madow=True) - float(loss.mean())


def heldout_mi(y_cal, preds_cal, y_test, preds_test, n_classes: int, alpha: float,
               with_se: bool = False) -> float | tuple[float, float]:
    """H(Y) on the test split minus the test log loss of the aggregator fit on the calibration split (bits); with_se
    also returns its standard error: sd of the pointwise log2 q(y | s) / p_test(y) over the test rows / sqrt(n)."""
    agg = PatternAggregator(n_classes, alpha).fit(y_cal, preds_cal)
    loss = -np.log2(agg.predict_proba(preds_test)[np.arange(len(y_test)), y_test])
    mi = entropy_bits(np.bincount(y_test, minlength=n_classes)) - float(loss.mean())
    if not with_se:
        return mi
    prior = np.bincount(y_test, minlength=n_classes)[y_test] / len(y_test)
    pointwise = -loss - np.log2(prior)
    return mi, float(pointwise.std(ddof=1) / np.sqrt(len(y_test)))


def exact_mi(joint: np.ndarray) -> float:
    """I(Y; X) from a joint probability table p[y, x] (rows: labels, columns: prediction patterns)."""
    joint = np.asarray(joint, dtype=float)
    py, px = joint.sum(1, keepdims=True), joint.sum(0, keepdims=True)
    mask = joint > 0
    return float((joint[mask] * np.log2(joint[mask] / (py @ px)[mask])).sum())


def estimate(name: str, y: np.ndarray, preds: np.ndarray, n_classes: int, alpha: float) -> float:
    """The selection criterion named in the config (`plugin_mm`, `plugin` or `cv_xent`)."""
    if name == "plugin_mm":
        return plugin_mi(y, preds, miller_madow=True)
    if name == "plugin":
        return plugin_mi(y, preds, miller_madow=False)
    if name == "cv_xent":
        return cv_mi(y, preds, n_classes, alpha)
    raise ValueError(f"unknown MI estimator {name!r}; expected plugin_mm, plugin or cv_xent")

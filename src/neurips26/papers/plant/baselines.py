"""TF-IDF + one-vs-rest logistic regression on the same documents (word unigrams and bigrams)."""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression


def tfidf_lr(texts: list[str], Y: np.ndarray, train_idx: np.ndarray, C: float, max_features: int) -> np.ndarray:
    """(N, L) probabilities for every document; a label with one class only in training gets that class's rate."""
    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=max_features, sublinear_tf=True)
    X = vec.fit(texts[i] for i in train_idx).transform(texts)
    out = np.zeros(Y.shape, dtype=np.float32)
    for label in range(Y.shape[1]):
        y = Y[train_idx, label]
        if y.min() == y.max():
            out[:, label] = y[0]
            continue
        clf = LogisticRegression(C=C, solver="liblinear", class_weight="balanced")
        out[:, label] = clf.fit(X[train_idx], y).predict_proba(X)[:, 1]
    return out


def tfidf_metrics(corpus, cfg) -> dict:
    """TF-IDF + LR on all training documents, evaluated on test at its own dev-tuned threshold (metrics.evaluate's
    dict). It reads no seed (liblinear's primal solver is deterministic), so one job computes it for every seed's
    main run (rule plant_tfidf)."""
    from neurips26.papers.plant import metrics

    train_idx, dev_idx, test_idx = corpus.index("train"), corpus.index("dev"), corpus.index("test")
    probs = tfidf_lr(corpus.texts, corpus.Y, train_idx, float(cfg.tfidf.C), int(cfg.tfidf.max_features))
    threshold = metrics.best_threshold(probs[dev_idx], corpus.Y[dev_idx], np.asarray(cfg.thresholds, float))
    return metrics.evaluate(probs[test_idx], corpus.Y[test_idx], threshold, corpus.rare)

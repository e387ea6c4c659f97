"""Members with headroom and redundancy (issue 28): an anchor cluster of near copies and members on disjoint data.

* **Anchor cluster.** A word TF-IDF logistic regression on the first `anchor_train` training texts (more than any
  other member sees, so it tops the accuracy ranking), asked about the plain pool texts and about `copies`
  paraphrased pool texts (each copy drops its own random `drop` fraction of the words): the same model under
  reworded inputs, near copies at the top of the ranking, where top-k falls into them.
* **Disjoint-data members.** `bags` models, each on its own slice of `bag_train` further training texts (no text
  shared with the anchor or another bag) and with its own featurisation (word or character TF-IDF logistic
  regression, multinomial naive Bayes on counts, bigram linear SVM, in turn): each less accurate than the anchor,
  their errors partly independent (different data, different features), so a set of them with the anchor can beat
  the anchor and its copies.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import LinearSVC

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.ensemble_mi.data import Task
from neurips26.papers.ensemble_mi.members import drop_words

KINDS = ("word_lr", "char_lr", "count_mnb", "bigram_svm")


def _fit_predict(kind: str, xtr: list[str], ytr: np.ndarray, xpo: list[str], seed: int) -> np.ndarray:
    if kind == "word_lr":
        vec = TfidfVectorizer(sublinear_tf=True, min_df=2, max_features=20000)
        model = LogisticRegression(C=4.0, max_iter=2000)
    elif kind == "char_lr":
        vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, min_df=3, max_features=30000)
        model = LogisticRegression(C=4.0, max_iter=2000)
    elif kind == "count_mnb":
        vec, model = CountVectorizer(min_df=2, max_features=20000), MultinomialNB()
    elif kind == "bigram_svm":
        vec = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2, max_features=40000)
        model = LinearSVC(C=0.5, random_state=seed)
    else:
        raise UserError(f"unknown member kind {kind!r}; known: {', '.join(KINDS)}")
    return np.asarray(model.fit(vec.fit_transform(xtr), ytr).predict(vec.transform(xpo)), dtype=np.int64)


def bagged_members(task: Task, seed: int, anchor_train: int, copies: int, drop: float, bags: int,
                   bag_train: int) -> dict[str, np.ndarray]:
    """name -> predicted labels on the pool: the anchor, its paraphrased copies, and the disjoint-data members."""
    need = anchor_train + bags * bag_train
    if len(task.train.y) < need:
        raise UserError(f"task {task.name}: the bagged members need {need} training texts, the split has "
                        f"{len(task.train.y)}")
    rng = np.random.default_rng(seed)
    xtr, ytr, xpo = task.train.texts, task.train.y, task.pool.texts
    word = TfidfVectorizer(sublinear_tf=True, min_df=2, max_features=20000)
    anchor = LogisticRegression(C=4.0, max_iter=2000).fit(word.fit_transform(xtr[:anchor_train]), ytr[:anchor_train])
    out = {"anchor_lr": anchor.predict(word.transform(xpo))}
    for i in range(copies):
        out[f"anchor_lr_para{i}"] = anchor.predict(word.transform(drop_words(xpo, drop, rng)))
    for i in range(bags):
        rows = slice(anchor_train + i * bag_train, anchor_train + (i + 1) * bag_train)
        kind = KINDS[i % len(KINDS)]
        out[f"bag{i}_{kind}"] = _fit_predict(kind, xtr[rows], ytr[rows], xpo, seed)
    return {name: np.asarray(pred, dtype=np.int64) for name, pred in out.items()}

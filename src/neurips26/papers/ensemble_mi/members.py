"""The classical members of the real pools: scikit-learn models on different feature views and training subsets.

Heterogeneous on purpose (word and character TF-IDF, counts, binary bags, first/last words only, half of the training
data) so that some members are near copies of each other (a correlated cluster) and others fail differently. Multiple
choice (MMLU) has no supervised text classifier; its members are answer heuristics and a small learned option ranker.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
from sklearn.svm import LinearSVC

from neurips26.papers.ensemble_mi.data import Task


def _words(texts: list[str], first: int | None = None, last: int | None = None) -> list[str]:
    split = [t.split() for t in texts]
    if first:
        return [" ".join(w[:first]) for w in split]
    return [" ".join(w[-last:]) for w in split]


def drop_words(texts: list[str], rate: float, rng: np.random.Generator) -> list[str]:
    """A cheap paraphrase: every word is dropped with probability `rate` (at least one word is kept)."""
    out = []
    for text in texts:
        words = text.split()
        keep = rng.random(len(words)) >= rate
        out.append(" ".join(w for w, k in zip(words, keep) if k) or (words[0] if words else ""))
    return out


def text_members(task: Task, seed: int, copies: int = 0, drop: float = 0.1) -> dict[str, np.ndarray]:
    """name -> predicted labels on the pool, for a single-label text classification task. `copies` adds a cluster of
    near copies at the top of the pool: the word TF-IDF logistic regression asked about paraphrased pool texts (each
    copy drops its own random `drop` fraction of the words)."""
    rng = np.random.default_rng(seed)
    xtr, ytr, xpo = task.train.texts, task.train.y, task.pool.texts
    half = rng.permutation(len(ytr))
    halves = {"a": half[: len(half) // 2], "b": half[len(half) // 2:]}
    word = TfidfVectorizer(sublinear_tf=True, min_df=2, max_features=20000)
    wtr, wpo = word.fit_transform(xtr), word.transform(xpo)
    out = {
        "tfidf_ridge": RidgeClassifier(alpha=1.0).fit(wtr, ytr).predict(wpo),
        "tfidf_knn": KNeighborsClassifier(15, metric="cosine").fit(wtr, ytr).predict(wpo),
        "tfidf_centroid": NearestCentroid().fit(wtr, ytr).predict(wpo),
    }
    for name, idx in halves.items():
        out[f"tfidf_lr_half_{name}"] = LogisticRegression(C=4.0, max_iter=2000).fit(wtr[idx], ytr[idx]).predict(wpo)
    lr = LogisticRegression(C=4.0, max_iter=2000).fit(wtr, ytr)
    out["tfidf_lr"] = lr.predict(wpo)
    for i in range(copies):
        out[f"tfidf_lr_para{i}"] = lr.predict(word.transform(drop_words(xpo, drop, rng)))
    bigram = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2, max_features=40000)
    svm = LinearSVC(C=0.5, random_state=seed).fit(bigram.fit_transform(xtr), ytr)
    out["bigram_svm"] = svm.predict(bigram.transform(xpo))
    char = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, min_df=3, max_features=30000)
    out["char_lr"] = LogisticRegression(C=4.0, max_iter=2000).fit(char.fit_transform(xtr), ytr).predict(char.transform(xpo))
    count = CountVectorizer(min_df=2, max_features=20000)
    ctr, cpo = count.fit_transform(xtr), count.transform(xpo)
    out["count_mnb"] = MultinomialNB().fit(ctr, ytr).predict(cpo)
    out["binary_bnb"] = BernoulliNB().fit(ctr > 0, ytr).predict(cpo > 0)
    for view, kwargs in {"first40": {"first": 40}, "last40": {"last": 40}}.items():
        vec = TfidfVectorizer(sublinear_tf=True, min_df=2)
        model = LogisticRegression(C=4.0, max_iter=2000).fit(vec.fit_transform(_words(xtr, **kwargs)), ytr)
        out[f"lr_{view}"] = model.predict(vec.transform(_words(xpo, **kwargs)))
    return {name: np.asarray(pred, dtype=np.int64) for name, pred in out.items()}


def _option_features(questions: list[str], options: list[list[str]], vectorizer) -> np.ndarray:
    """Per (question, option): option length (z-scored within the question), TF-IDF cosine to the question, position."""
    n = len(questions)
    q = vectorizer.transform(questions)
    o = vectorizer.transform([a for opts in options for a in opts])
    cos = np.asarray(o.multiply(q[np.repeat(np.arange(n), 4)]).sum(1)).reshape(n, 4)
    length = np.array([[len(a) for a in opts] for opts in options], dtype=float)
    z = (length - length.mean(1, keepdims=True)) / (length.std(1, keepdims=True) + 1e-9)
    position = np.broadcast_to(np.eye(4), (n, 4, 4))
    return np.concatenate([z[..., None], cos[..., None], position], axis=2), length, cos


def choice_members(task: Task, seed: int) -> dict[str, np.ndarray]:
    """name -> predicted answer index on the pool, for 4-way multiple choice."""
    tr, po = task.train, task.pool
    vectorizer = TfidfVectorizer(sublinear_tf=True).fit(tr.texts + [a for o in tr.options for a in o])
    ftr, _, _ = _option_features(tr.texts, tr.options, vectorizer)
    fpo, length, cos = _option_features(po.texts, po.options, vectorizer)
    ranker = LogisticRegression(C=1.0, max_iter=2000, random_state=seed)
    ranker.fit(ftr.reshape(-1, ftr.shape[2]), (np.arange(4)[None, :] == tr.y[:, None]).reshape(-1))
    scores = ranker.decision_function(fpo.reshape(-1, fpo.shape[2])).reshape(-1, 4)
    prior = {}
    for topic, answer in zip(tr.topics, tr.y):
        prior.setdefault(topic, np.zeros(4))[answer] += 1
    overall = np.bincount(tr.y, minlength=4)
    return {"longest_option": length.argmax(1), "shortest_option": length.argmin(1), "tfidf_overlap": cos.argmax(1),
            "option_ranker": scores.argmax(1),
            "subject_prior": np.array([int(np.argmax(prior.get(t, overall))) for t in po.topics])}

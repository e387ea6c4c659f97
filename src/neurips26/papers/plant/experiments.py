"""One run = one backbone x one experiment x one seed: MI on the training documents, relevance grades, the L2R scorer,
then every decoder variant of that experiment trained on the same cached token states (and TF-IDF + LR in main)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.plant import l2r, method, metrics, mi
from neurips26.papers.plant.data import Corpus

# experiment -> the decoder variants it trains (name, relevance, p, inattention). "oracle" is the positive control:
# the L2R scorer trained on grades from MI over ALL documents (train + dev + test labels), i.e. tokens that truly carry
# each label in the test documents, planted exactly like PLANT; planting must help there if the test can show a gain.
# Which ablations a run trains is `ablations` in the config (the default scale keeps the two the claims need).
ABLATIONS = {"random_relevance": ("random_relevance", "random", 0.5, True),
             "mi_attention": ("mi_attention", "mi", 0.5, True),
             "plant_p1": ("plant_p1", "l2r", 1.0, True), "oracle": ("oracle", "oracle", 0.5, True)}
MAIN = [("plant", "l2r", 0.5, True), ("laat", None, 0.0, False)]


def _tensors(states: dict, corpus: Corpus, vocab_of: np.ndarray) -> dict:
    ids = states["ids"].astype(np.int64)
    # float32 once (exact from float16) instead of converting every batch
    return {"H": torch.as_tensor(states["states"]).float(), "ids": torch.as_tensor(vocab_of[ids]),
            "mask": torch.as_tensor(states["mask"]), "Y": torch.as_tensor(corpus.Y)}


def tables_for(states: dict, corpus: Corpus, train_idx: np.ndarray, cfg, rng,
               kinds=("l2r",)) -> tuple[dict, dict, np.ndarray]:
    """Per relevance kind, the (V', L) planted score table over the compact vocabulary V' (tokens seen in the training
    documents + one unseen row, index V'-1), and summary numbers."""
    ids, mask = states["ids"].astype(np.int64), states["mask"]
    seen = np.unique(ids[train_idx][mask[train_idx]])
    vocab_of = np.full(int(np.ravel(states["vocab"])[0]), len(seen), dtype=np.int64)
    vocab_of[seen] = np.arange(len(seen))
    X = mi.presence(vocab_of[ids[train_idx]], mask[train_idx], len(seen))
    _, nmi = mi.mutual_information(X, corpus.Y[train_idx])
    grades = l2r.grades(nmi)
    shuffled = np.stack([rng.permutation(grades[:, j]) for j in range(grades.shape[1])], 1)
    out, info = {}, {"vocab": len(seen)}
    for kind, rel in (("l2r", grades), ("random", shuffled), ("oracle", None)):
        if kind not in kinds:
            continue
        if kind == "oracle":  # MI over every document, test labels included (a leak, on purpose: the control)
            X_all = mi.presence(vocab_of[ids], mask, len(seen) + 1)[:, :len(seen)]
            rel = l2r.grades(mi.mutual_information(X_all, corpus.Y)[1])
        table, history = l2r.train_scorer(rel, cfg.l2r, rng)
        out[kind] = table
        info[f"{kind}_ndcg"] = history[-1]
    with np.errstate(divide="ignore"):
        out["mi"] = np.log(nmi)  # softmax of log MI = attention proportional to MI
    unseen = np.full((1, nmi.shape[1]), -np.inf, dtype=np.float32)
    return {k: np.vstack([v.astype(np.float32), unseen]) for k, v in out.items()}, info, vocab_of


def fit(variant, data, planted, corpus, train_idx, dev_idx, test_idx, cfg, stream: list[int],
        threshold: float | None = None, on_epoch=None, cache: dict | None = None) -> dict:
    """Train and evaluate one decoder variant. `stream` seeds its initialisation and its batch order: every variant
    of a seed x fraction x restart gets the same stream (common random numbers), so PLANT and LAAT start from the same
    weights and see the same batches, and their paired difference carries the method, not the draw. `threshold`
    None: the variant's own dev-tuned threshold; else that threshold (the `laat` protocol, see run). `on_epoch`:
    method.train's per-epoch callback (the pilot's). `cache`: a dict kept across the restarts of one table set; the
    inattention table and the sparse planted attention of a relevance kind are computed once into it (they depend on
    the frozen table only, not on the restart)."""
    name, relevance, p, inattentive = variant
    rng = np.random.default_rng(stream)
    table, sparse = None, None
    if relevance is not None:
        cache = {} if cache is None else cache
        if (relevance, inattentive) not in cache:
            k = int(cfg.inattention_k) if inattentive else None
            t = np.vstack([method.inattention(planted[relevance][:-1], k), planted[relevance][-1:]])
            # sparse planted attention; without inattention it is dense anyway
            cache[relevance, inattentive] = (t, method.sparse_planted(t, data["ids"].numpy(), data["mask"].numpy())
                                             if inattentive else None)
        table, sparse = cache[relevance, inattentive]
    torch.manual_seed(int(rng.integers(2**31)))
    model = method.Decoder(data["H"].shape[-1], int(cfg.decoder.hidden), corpus.Y.shape[1], p, table)
    data = dict(data)
    if sparse is not None:
        data["planted"] = sparse
    grid = np.asarray(cfg.thresholds, dtype=float)
    Ydev = corpus.Y[dev_idx]

    kind = str(cfg.decoder.get("dev_score", "p5_micro"))
    score = lambda probs: metrics.dev_score(probs, Ydev, grid, kind)  # noqa: E731

    model, history, hit_cap = method.train(model, data, train_idx, dev_idx, cfg.decoder, rng, score, on_epoch)
    dev, test = method.predict(model, data, dev_idx), method.predict(model, data, test_idx)
    if threshold is None:
        threshold = metrics.best_threshold(dev, Ydev, grid)
    fixed = str(cfg.decoder.get("stopping", "patience")) == "fixed"  # a fixed budget keeps its last epoch
    row = {"method": name, "p": p, "epochs": len(history),
           "best_epoch": len(history) if fixed else int(np.argmax(history)) + 1, "hit_cap": bool(hit_cap)}
    return row | metrics.evaluate(test, corpus.Y[test_idx], threshold, corpus.rare), model


def run(kind: str, backbone: str, states: dict, corpus: Corpus, cfg, seed: int,
        laat_thresholds: dict | None = None, tfidf: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(metric rows, attention rows) of experiment `kind` (main | ablation | fraction) on one backbone and seed.
    `laat_thresholds` {(fraction, restart): threshold} (the `laat` protocol): LAAT's dev-tuned thresholds from the main
    run of the same backbone and seed (`laat_thresholds_of`), used instead of training that LAAT again; the LAAT it
    would train is the same model (same split, training documents, stream and initialisation: common random numbers),
    so the thresholds are the same (tests/unit/test_plant_fair.py). `tfidf`: TF-IDF LR's metrics from the tfidf job
    (baselines.tfidf_metrics, seed-independent) for the MiniLM main run; None: computed here."""
    rng = np.random.default_rng([seed, 14])
    train_all, dev_idx, test_idx = corpus.index("train"), corpus.index("dev"), corpus.index("test")
    fractions = [float(f) for f in cfg.fractions if float(f) < 1] if kind == "fraction" else [1.0]
    unknown = set(cfg.ablations) - set(ABLATIONS)
    if unknown:
        raise UserError(f"plant: unknown ablations {sorted(unknown)}; known: {sorted(ABLATIONS)}")
    variants = {"main": MAIN, "ablation": [ABLATIONS[a] for a in cfg.ablations], "fraction": MAIN}[kind]
    restarts = run_restarts(cfg, backbone, kind)
    protocol = str(cfg.decoder.get("threshold", "per_method"))
    if protocol not in ("per_method", "laat"):
        raise UserError(f"plant: decoder.threshold must be per_method or laat, not {protocol!r}")
    rows, attention = [], pd.DataFrame()
    for fraction in fractions:
        train_idx = np.sort(rng.permutation(train_all)[:max(2, int(round(fraction * len(train_all))))])
        kinds = {v[1] for v in variants} - {None, "mi"}
        planted, info, vocab_of = tables_for(states, corpus, train_idx, cfg, rng, kinds)
        data, cache = _tensors(states, corpus, vocab_of), {}
        for restart in range(restarts):
            stream = [seed, 15, restart, int(round(1000 * fraction))]  # the same for every variant (see fit)
            done, common = {}, None
            if protocol == "laat":  # every decoder at LAAT's dev-tuned threshold of this seed x fraction x restart
                if laat_thresholds is not None and "laat" not in {v[0] for v in variants}:
                    if (fraction, restart) not in laat_thresholds:
                        raise UserError(f"plant: no LAAT threshold for fraction {fraction}, restart {restart} in the "
                                        f"main run (has {sorted(laat_thresholds)}); rerun it with the same config")
                    common = laat_thresholds[fraction, restart]
                else:
                    done["laat"] = fit(MAIN[1], data, planted, corpus, train_idx, dev_idx, test_idx, cfg, stream)
                    common = done["laat"][0]["threshold"]
            for variant in variants:
                row, model = done.get(variant[0]) or fit(variant, data, planted, corpus, train_idx, dev_idx, test_idx,
                                                         cfg, stream, common, cache=cache)
                rows.append({"backbone": backbone, "experiment": kind, "seed": seed, "restart": restart,
                             "fraction": fraction} | row | info)
                if kind == "main" and variant[0] == "plant" and restart == 0:
                    attention = attention_rows(model, data, states, corpus, test_idx, cfg, seed)
        if kind == "main" and backbone == "minilm" and cfg.tfidf.enabled:
            if tfidf is None:
                from neurips26.papers.plant.baselines import tfidf_metrics  # scikit-learn: only here

                tfidf = tfidf_metrics(corpus, cfg)
            rows.append({"backbone": "tfidf", "experiment": kind, "seed": seed, "restart": 0, "fraction": fraction,
                         "method": "tfidf_lr", "p": np.nan, "epochs": 0, "best_epoch": 0, "hit_cap": False}
                        | tfidf | info)
    return pd.DataFrame(rows), attention


def laat_thresholds_of(frame: pd.DataFrame, backbone: str, seed: int) -> dict:
    """{(fraction, restart): threshold} of the LAAT rows of a main run's metric rows (backbone, seed)."""
    rows = frame[(frame["method"] == "laat") & (frame["backbone"] == backbone) & (frame["seed"] == seed)]
    if rows.empty:
        raise UserError(f"plant: the main run has no LAAT rows for backbone {backbone}, seed {seed}")
    return {(float(r.fraction), int(r.restart)): float(r.threshold) for r in rows.itertuples()}


def run_restarts(cfg, backbone: str, kind: str) -> int:
    """Decoder restarts of one run: `restarts`, unless the backbone sets its own (`backbones.<b>.restarts`) or the
    run is the fraction sweep (`fraction_restarts`, default `restarts`)."""
    spec = cfg.get("backbones", {}).get(backbone) or {}
    restarts = int(spec.get("restarts", cfg.get("restarts", 1)))
    return int(cfg.get("fraction_restarts", restarts)) if kind == "fraction" else restarts


def attention_rows(model, data, states, corpus, test_idx, cfg, seed) -> pd.DataFrame:
    """Learned, planted and mixed attention of the first test document over its gold labels (up to 8): long format."""
    doc = int(test_idx[0])
    labels = np.flatnonzero(corpus.Y[doc])[:8]
    with torch.no_grad():
        H, ids, mask = data["H"][doc:doc + 1].float(), data["ids"][doc:doc + 1], data["mask"][doc:doc + 1]
        z = torch.tanh(model.proj(H))
        lin = torch.softmax((z @ model.u.T).masked_fill(~mask[..., None], -torch.inf), 1)[0].numpy()
        pl = method.planted_attention(model.table, ids, mask)[0].numpy()
    n = int(states["mask"][doc].sum())
    rows = []
    for j in labels:
        for t in range(n):
            rows.append({"seed": seed, "pmid_index": doc, "label": corpus.labels[j], "rare": bool(corpus.rare[j]),
                         "position": t,
                         "token": str(states["tokens"][states["ids"][doc, t]]), "learned": lin[t, j],
                         "planted": pl[t, j], "mixed": (1 - model.p) * lin[t, j] + model.p * pl[t, j]})
    return pd.DataFrame(rows)

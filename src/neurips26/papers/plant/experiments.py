"""One run = one backbone x one experiment x one seed: MI on the training documents, relevance grades, the L2R scorer,
then every decoder variant of that experiment trained on the same cached token states (and TF-IDF + LR in main)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.plant import l2r, method, metrics, mi, planting
from neurips26.papers.plant.data import Corpus

# A decoder variant is (name, relevance kind, p, planting mode). Mode "trainable": PLANT's planting (planting.py), the
# relevance kind's L2R factors initialise trainable planted attention with learned mixing weights; "frozen": the
# frozen-table ablation, a = (1 - p) a_lin + p a_pl of the kind's fixed table; None: LAAT (random-init attention).
# LAAT and PLANT are the same decoder with the same budget; only the initialisation of the attention differs.
MAIN = [("plant", "l2r", 0.0, "trainable"), ("laat", None, 0.0, None)]
# Positive control (`controls` in the config, run beside PLANT and LAAT in the main and fraction experiments): the L2R
# scorer trained on grades from MI over ALL documents (train + dev + test labels, a leak on purpose), planted exactly
# like PLANT: tokens that truly carry each label in the test documents; if planting can help here, it must help there.
CONTROLS = {"oracle": ("oracle", "oracle", 0.0, "trainable")}
# Ablations (`ablations` in the config): random relevance = L2R trained on the grades permuted within each label,
# planted and fine-tuned like PLANT (issue #65 item 2); the frozen table at p = 0.5 (the design before issue #65),
# MI used directly as a frozen attention, and the frozen table at p = 1.
ABLATIONS = {"random_relevance": ("random_relevance", "random", 0.0, "trainable"),
             "frozen_table": ("frozen_table", "l2r", 0.5, "frozen"),
             "mi_attention": ("mi_attention", "mi", 0.5, "frozen"),
             "frozen_p1": ("frozen_p1", "l2r", 1.0, "frozen")}


def _tensors(states: dict, corpus: Corpus, vocab_of: np.ndarray) -> dict:
    ids = states["ids"].astype(np.int64)
    # float32 once (exact from float16) instead of converting every batch
    return {"H": torch.as_tensor(states["states"]).float(), "ids": torch.as_tensor(vocab_of[ids]),
            "mask": torch.as_tensor(states["mask"]), "Y": torch.as_tensor(corpus.Y)}


def tables_for(states: dict, corpus: Corpus, train_idx: np.ndarray, cfg, rng,
               kinds=("l2r",)) -> tuple[dict, dict, np.ndarray, dict]:
    """Per relevance kind, the (V', L) L2R score table over the compact vocabulary V' (tokens seen in the training
    documents + one unseen row, index V'-1), summary numbers, the vocabulary map, and per L2R kind the scorer's
    factors {u (V', F), v, bt (V',), bl} with a zero unseen row (never planted: its table row is -inf)."""
    ids, mask = states["ids"].astype(np.int64), states["mask"]
    seen = np.unique(ids[train_idx][mask[train_idx]])
    vocab_of = np.full(int(np.ravel(states["vocab"])[0]), len(seen), dtype=np.int64)
    vocab_of[seen] = np.arange(len(seen))
    X = mi.presence(vocab_of[ids[train_idx]], mask[train_idx], len(seen))
    _, nmi = mi.mutual_information(X, corpus.Y[train_idx])
    grades = l2r.grades(nmi)
    shuffled = np.stack([rng.permutation(grades[:, j]) for j in range(grades.shape[1])], 1)
    out, info, factors = {}, {"vocab": len(seen)}, {}
    for kind, rel in (("l2r", grades), ("random", shuffled), ("oracle", None)):
        if kind not in kinds:
            continue
        if kind == "oracle":  # MI over every document, test labels included (a leak, on purpose: the control)
            X_all = mi.presence(vocab_of[ids], mask, len(seen) + 1)[:, :len(seen)]
            rel = l2r.grades(mi.mutual_information(X_all, corpus.Y)[1])
        table, history, f = l2r.train_scorer(rel, cfg.l2r, rng)
        out[kind] = table
        factors[kind] = {"u": np.vstack([f["u"], np.zeros((1, f["u"].shape[1]), f["u"].dtype)]),
                         "bt": np.append(f["bt"], 0.0).astype(np.float32), "v": f["v"], "bl": f["bl"]}
        info[f"{kind}_ndcg"] = history[-1]
    with np.errstate(divide="ignore"):
        out["mi"] = np.log(nmi)  # softmax of log MI = attention proportional to MI
    unseen = np.full((1, nmi.shape[1]), -np.inf, dtype=np.float32)
    return {k: np.vstack([v.astype(np.float32), unseen]) for k, v in out.items()}, info, vocab_of, factors


def _planted_inputs(relevance: str, mode: str, planted: dict, data: dict, cfg, cache: dict) -> tuple:
    """(frozen inattention table or None, sparse entries) of a relevance kind and mode, computed once per table set:
    the frozen mode's planted attention (method.sparse_planted), the trainable mode's support (planting.support;
    both over each label's top-k tokens of the kind's initial table)."""
    if (relevance, mode) not in cache:
        k = int(cfg.inattention_k)
        t = np.vstack([method.inattention(planted[relevance][:-1], k), planted[relevance][-1:]])
        ids, mask = data["ids"].numpy(), data["mask"].numpy()
        cache[relevance, mode] = ((t, method.sparse_planted(t, ids, mask)) if mode == "frozen"
                                  else (None, planting.support(t, ids, mask)))
    return cache[relevance, mode]


def fit(variant, data, planted, corpus, train_idx, dev_idx, test_idx, cfg, stream: list[int], factors: dict | None = None,
        on_epoch=None, cache: dict | None = None) -> tuple[dict, method.Decoder]:
    """Train and evaluate one decoder variant. `stream` seeds its initialisation and its batch order: every variant
    of a seed x fraction x restart gets the same stream (common random numbers), so PLANT and LAAT start from the same
    projection, learned attention and output weights and see the same batches, and their paired difference carries
    the planted initialisation, not the draw. Every variant is evaluated at its own dev-tuned threshold (the dev
    micro-F1 best of `thresholds`; TF-IDF LR the same, baselines.tfidf_metrics). `factors`: tables_for's factors
    (the trainable mode's initialisation). `on_epoch`: method.train's per-epoch callback. `cache`: a dict kept across
    the restarts of one table set (the inattention tables and entries depend on the initial table only)."""
    name, relevance, p, mode = variant
    rng = np.random.default_rng(stream)
    table, entries = None, None
    if relevance is not None:
        table, entries = _planted_inputs(relevance, mode, planted, data, cfg, {} if cache is None else cache)
    torch.manual_seed(int(rng.integers(2**31)))
    grown = None
    if mode == "trainable":
        if factors is None or relevance not in factors:
            raise UserError(f"plant: no L2R factors of relevance {relevance!r} to plant {name}")
        grown = planting.TrainablePlanting(factors[relevance])
    model = method.Decoder(data["H"].shape[-1], int(cfg.decoder.hidden), corpus.Y.shape[1], p, table, grown,
                           tuple(float(w) for w in cfg.decoder.get("mix_init", (0.0, 1.0))))
    data = dict(data)
    if entries is not None:
        data["planted"] = entries
    grid = np.asarray(cfg.thresholds, dtype=float)
    Ydev = corpus.Y[dev_idx]

    kind = str(cfg.decoder.get("dev_score", "p5_micro"))
    score = lambda probs: metrics.dev_score(probs, Ydev, grid, kind)  # noqa: E731

    model, history, hit_cap = method.train(model, data, train_idx, dev_idx, cfg.decoder, rng, score, on_epoch)
    model.entries = entries  # the planted entries it was trained with (attention_rows reads them)
    dev, test = method.predict(model, data, dev_idx), method.predict(model, data, test_idx)
    threshold = metrics.best_threshold(dev, Ydev, grid)
    fixed = str(cfg.decoder.get("stopping", "patience")) == "fixed"  # a fixed budget keeps its last epoch
    row = {"method": name, "p": p, "epochs": len(history),
           "best_epoch": len(history) if fixed else int(np.argmax(history)) + 1, "hit_cap": bool(hit_cap)}
    if model.mix is not None:  # where the learned mixing weights ended
        row |= {"mix_learned": float(model.mix[0].detach()), "mix_planted": float(model.mix[1].detach())}
    return row | metrics.evaluate(test, corpus.Y[test_idx], threshold, corpus.rare), model


def variants_of(kind: str, cfg) -> list[tuple]:
    """The decoder variants experiment `kind` trains: main and fraction PLANT, LAAT and the configured controls;
    ablation the configured ablations."""
    unknown = (set(cfg.ablations) - set(ABLATIONS)) | (set(cfg.get("controls", [])) - set(CONTROLS))
    if unknown:
        raise UserError(f"plant: unknown ablations or controls {sorted(unknown)}; known: ablations "
                        f"{sorted(ABLATIONS)}, controls {sorted(CONTROLS)}")
    if kind == "ablation":
        return [ABLATIONS[a] for a in cfg.ablations]
    return MAIN + [CONTROLS[c] for c in cfg.get("controls", [])]


def run(kind: str, backbone: str, states: dict, corpus: Corpus, cfg, seed: int,
        tfidf: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(metric rows, attention rows) of experiment `kind` (main | ablation | fraction) on one backbone and seed.
    `tfidf`: TF-IDF LR's metrics from the seed's tfidf job (baselines.tfidf_metrics) for the MiniLM main run; None:
    computed here."""
    rng = np.random.default_rng([seed, 14])
    train_all, dev_idx, test_idx = corpus.index("train"), corpus.index("dev"), corpus.index("test")
    fractions = [float(f) for f in cfg.fractions if float(f) < 1] if kind == "fraction" else [1.0]
    variants = variants_of(kind, cfg)
    restarts = run_restarts(cfg, backbone, kind)
    rows, attention = [], pd.DataFrame()
    for fraction in fractions:
        train_idx = np.sort(rng.permutation(train_all)[:max(2, int(round(fraction * len(train_all))))])
        kinds = {v[1] for v in variants} - {None, "mi"}
        planted, info, vocab_of, factors = tables_for(states, corpus, train_idx, cfg, rng, kinds)
        data, cache = _tensors(states, corpus, vocab_of), {}
        for restart in range(restarts):
            stream = [seed, 15, restart, int(round(1000 * fraction))]  # the same for every variant (see fit)
            for variant in variants:
                row, model = fit(variant, data, planted, corpus, train_idx, dev_idx, test_idx, cfg, stream, factors,
                                 cache=cache)
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
        if model.planting is not None:  # trained planted attention and mixing weights
            pl = model.planting.dense(model.entries, torch.tensor([doc]), ids.shape[1])[0].numpy()
            w_lin, w_pl = (float(w) for w in model.mix)
        else:
            pl = method.planted_attention(model.table, ids, mask)[0].numpy()
            w_lin, w_pl = 1 - model.p, model.p
    n = int(states["mask"][doc].sum())
    rows = []
    for j in labels:
        for t in range(n):
            rows.append({"seed": seed, "pmid_index": doc, "label": corpus.labels[j], "rare": bool(corpus.rare[j]),
                         "position": t,
                         "token": str(states["tokens"][states["ids"][doc, t]]), "learned": lin[t, j],
                         "planted": pl[t, j], "mixed": w_lin * lin[t, j] + w_pl * pl[t, j]})
    return pd.DataFrame(rows)

"""One run = one seed, one regime or all of them: allocate the DCI training pool from the feature cache, split labelled /
unlabelled, train every method, and score each on the balanced test cells. Returns (cells, pseudo): one row per regime x
method x class x domain, and per semi-supervised method x epoch x cell the pseudo-labels it assigned to the unlabelled
pool and how many were right (the bias-reinforcement diagnostic).

The positive controls of the component claims (`control` in the config) run in one regime: the same pool and labelled
rows' first `control.label_fraction` (fewer labels, a subset of the main labelled set) and a faster EMA teacher
(`control.ema`: a noisier teacher), as methods named `<method>_ctl`."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from neurips26.papers.hyperidac import baselines, debias
from neurips26.papers.hyperidac.allocation import dci_allocation
from neurips26.papers.hyperidac.method import HyperHead, StaticHead
from neurips26.papers.hyperidac.training import Split, train_semi

# method -> (head, pseudo-labelling scheme, use_history, use_fallback, HyperHead options)
SEMI = {
    "self_training": ("static", "fixmatch", True, True, {}),
    "debiased": ("static", "debiased", True, True, {}),
    "debiased_cond": ("static", "debiased_cond", True, True, {}),
    "static": ("static", "multilevel", True, True, {}),
    "hyperidac": ("hyper", "multilevel", True, True, {}),
    "hyperidac_no_prior": ("hyper", "multilevel", True, True, {"use_prior": False}),
    "hyperidac_no_embed": ("hyper", "multilevel", True, True, {"use_embeddings": False}),
    "hyperidac_no_history": ("hyper", "multilevel", False, False, {}),
}


def sample_pool(feats: dict, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Indices of pool rows: counts[c, d] candidates drawn without replacement from cell (c, d)."""
    chosen = []
    for c, d in np.ndindex(*counts.shape):
        cell = np.flatnonzero((feats["pool_y"] == c) & (feats["pool_d"] == d))
        if counts[c, d] > len(cell):
            raise ValueError(f"cell ({c}, {d}) needs {counts[c, d]} candidates, the cache has {len(cell)}")
        chosen.append(rng.choice(cell, counts[c, d], replace=False))
    return rng.permutation(np.concatenate(chosen))


def _head(kind: str, protos: torch.Tensor, cfg, options: dict):
    m = cfg.model
    if kind == "static":
        return StaticHead(protos, m.tau)
    return HyperHead(protos, m.tau, int(m.latent_domains), int(m.rank), int(m.prior_hidden), **options)


def allocation(cfg, regime: str, n_classes: int = 10) -> np.ndarray:
    """The regime's cell counts [class, domain]."""
    return dci_allocation(int(cfg.n_train), n_classes, len(cfg.domains), float(cfg.regimes[regime]),
                          int(cfg.allocation.min_cell))


def run_seed(feats: dict, cfg, seed: int, regimes: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The given regimes (default: all) of one seed in one job (the torch start-up is paid once): (cells, pseudo)."""
    parts = [run_regime(feats, cfg, regime, seed) for regime in (regimes or list(cfg.regimes))]
    return (pd.concat([c for c, _ in parts], ignore_index=True),
            pd.concat([q for _, q in parts], ignore_index=True))


def run_regime(feats: dict, cfg, regime: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    k, n_dom = len(feats["prototypes"]), len(cfg.domains)
    counts = allocation(cfg, regime, k)
    rng = np.random.default_rng(seed)
    pool = sample_pool(feats, counts, rng)
    n_lab = int(round(cfg.label_fraction * len(pool)))
    lab = pool[:n_lab]
    centre = feats["pool_x"][pool].mean(0)   # centring by the (unlabelled) training pool's mean feature

    def prep(x):
        return F.normalize(torch.from_numpy(x - centre), dim=-1)

    protos = prep(feats["prototypes"])
    x_all, y_all, d_all = prep(feats["pool_x"][pool]), torch.from_numpy(feats["pool_y"][pool]), \
        torch.from_numpy(feats["pool_d"][pool])
    x_lab, y_lab, x_unl = x_all[:n_lab], y_all[:n_lab], x_all[n_lab:]
    x_test = prep(feats["test_x"])
    zs_unl = baselines.zero_shot(protos, x_all[n_lab:], cfg.model.tau)
    y_pool, d_pool = feats["pool_y"][pool], feats["pool_d"][pool]
    cell_pool = y_pool * n_dom + d_pool
    clusters = debias.domain_clusters(x_all.numpy(), int(cfg.model.latent_domains), seed) \
        if "debiased_cond" in cfg.methods else None
    split = Split(x_lab, y_lab, x_unl, zs_unl, y_pool[n_lab:], cell_pool[n_lab:],
                  None if clusters is None else clusters[n_lab:])

    predictions, pseudo = {}, []
    for method in cfg.methods:
        start = time.perf_counter()
        if method == "zero_shot":
            predictions[method] = baselines.zero_shot(protos, x_test, cfg.model.tau)
        elif method == "dpa":
            predictions[method] = baselines.dpa(protos, x_lab, y_lab, x_unl, cfg)(x_test)
        elif method == "boda_labelled":
            head = baselines.boda_labelled(protos, x_all, y_all, d_all, cfg, seed)
            predictions[method] = _predict(head, x_test)
        elif method in SEMI:
            kind, scheme, use_history, use_fallback, options = SEMI[method]
            record = []
            head = train_semi(_head(kind, protos, cfg, options), split, cfg, scheme, seed, use_history, use_fallback,
                              record=record)
            predictions[method] = _predict(head, x_test)
            pseudo.append(pd.DataFrame(record).assign(method=method))
        else:
            raise ValueError(f"methods: unknown method {method!r}")
        print(f"{regime} seed {seed} {method}: {time.perf_counter() - start:.1f} s", flush=True)
    if regime == cfg.control.regime:
        predictions |= _controls(cfg, protos, x_all, y_all, zs_unl, n_lab, len(pool), seed, x_test)

    n_lab_cell = np.zeros_like(counts)
    np.add.at(n_lab_cell, (feats["pool_y"][lab], feats["pool_d"][lab]), 1)
    rows = []
    for method, pred in predictions.items():
        for c, d in np.ndindex(k, n_dom):
            cell = (feats["test_y"] == c) & (feats["test_d"] == d)
            rows.append({"method": method, "regime": regime, "gamma": float(cfg.regimes[regime]), "seed": seed,
                         "cls": c, "domain": cfg.domains[d], "n_train": int(counts[c, d]),
                         "n_labelled": int(n_lab_cell[c, d]), "n_test": int(cell.sum()),
                         "accuracy": float((pred[cell] == c).mean())})
    return pd.DataFrame(rows), _pseudo_table(pseudo, counts, regime, seed, n_dom)


def _controls(cfg, protos, x_all, y_all, zs_unl, n_lab: int, n_pool: int, seed: int, x_test) -> dict:
    """The component claims' positive controls: fewer labels (the first rows of the labelled set) and a faster EMA
    teacher. The rows between the control's and the main labelled set become unlabelled (their zero-shot labels are
    computed here, the rest reused)."""
    n_ctl = int(round(float(cfg.control.label_fraction) * n_pool))
    zs = np.concatenate([baselines.zero_shot(protos, x_all[n_ctl:n_lab], cfg.model.tau), zs_unl])
    split = Split(x_all[:n_ctl], y_all[:n_ctl], x_all[n_ctl:], zs)
    out = {}
    for method in cfg.control.methods:
        start = time.perf_counter()
        kind, scheme, use_history, use_fallback, options = SEMI[method]
        head = train_semi(_head(kind, protos, cfg, options), split, cfg, scheme, seed, use_history, use_fallback,
                          ema=float(cfg.control.ema))
        out[f"{method}_ctl"] = _predict(head, x_test)
        print(f"control seed {seed} {method}: {time.perf_counter() - start:.1f} s", flush=True)
    return out


def _pseudo_table(pseudo: list, counts: np.ndarray, regime: str, seed: int, n_dom: int) -> pd.DataFrame:
    """One row per method x epoch x cell: unlabelled rows (n), pseudo-labelled ones (assigned), correct ones."""
    if not pseudo:
        return pd.DataFrame(columns=["method", "regime", "seed", "epoch", "cls", "domain_index", "n_train", "n",
                                     "assigned", "correct"])
    long = pd.concat(pseudo, ignore_index=True)
    wide = long.pivot_table(index=["method", "epoch", "cell"], columns="count", values="value").reset_index()
    wide["cls"], wide["domain_index"] = wide.cell // n_dom, wide.cell % n_dom
    wide["n_train"] = counts[wide.cls, wide.domain_index]
    wide = wide.assign(regime=regime, seed=seed)
    return wide[["method", "regime", "seed", "epoch", "cls", "domain_index", "n_train", "n", "assigned", "correct"]]


def _predict(head, x: torch.Tensor) -> np.ndarray:
    head.eval()
    with torch.no_grad():
        return head(x)[0].argmax(1).numpy()

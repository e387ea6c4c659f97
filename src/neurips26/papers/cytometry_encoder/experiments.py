"""One job each: pretrain one sweep point (and probe it), marker removal, specialists, baselines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch

from neurips26.papers.cytometry_encoder import corpus, pretrain, probe
from neurips26.papers.cytometry_encoder.corpus import Sample

CONTROLS = ("negative_control", "positive_control")  # taxonomies outside the paper's five-task comparison


def variants(cfg) -> dict[str, tuple[int, float, str]]:
    """Sweep point name -> (width, corpus fraction, marker-name vectors). 'base' (full width, full corpus, model.names)
    is shared by both sweeps; 'hashed' is the name-vector ablation (hashed n-grams instead of MiniLM), unless
    sweeps.hashed_ablation is false."""
    base, kind = int(cfg.model.width), str(cfg.model.names)
    out = {"base": (base, 1.0, kind)}
    out.update({f"width{int(w)}": (int(w), 1.0, kind) for w in cfg.sweeps.capacity if int(w) != base})
    out.update({f"corpus{float(f):g}": (base, float(f), kind) for f in cfg.sweeps.corpus if float(f) != 1.0})
    if kind != "hashed" and bool(cfg.sweeps.get("hashed_ablation", True)):  # off at default (JOURNAL: fifth change)
        out["hashed"] = (base, 1.0, "hashed")
    return out


def _probe(cfg, z: np.ndarray, rows: list[Sample], seed: int) -> float:
    return probe.cv_auroc(z, np.array([s.label for s in rows]), int(cfg.probe.folds), float(cfg.probe.l2_c), seed)


def evaluate_frozen(cfg, model, task_rows: dict[str, list[Sample]], seed: int, method: str) -> list[dict]:
    out = []
    for task, rows in task_rows.items():
        z = pretrain.embed(model, rows, int(cfg.probe.cells), seed)
        out.append({"task": task, "taxonomy": corpus.taxonomy(rows), "method": method, "auroc": _probe(cfg, z, rows, seed)})
    return out


def load(cfg, data_dir: Path, vectors_path: Path, kind: str | None = None):
    from neurips26.papers.cytometry_encoder import marker_vectors

    samples = corpus.load_samples(data_dir, marker_vectors.load(vectors_path, str(kind or cfg.model.names)))
    return samples, corpus.tasks(samples, [t.name for t in cfg.tasks])


def run_pretrain(cfg, seed: int, samples: list[Sample], task_rows: dict, variant: str):
    """Pretrain one sweep point on a random fraction of the corpus; probe it frozen on every task."""
    width, fraction, kind = variants(cfg)[variant]
    pool = corpus.corpus(samples)
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.permutation(len(pool))[: max(int(cfg.pretrain.batch), round(fraction * len(pool)))])
    model = pretrain.build_model(cfg, width, kind)
    loss, curve = pretrain.pretrain(model, [pool[i] for i in keep], cfg, seed)
    rows = pd.DataFrame(evaluate_frozen(cfg, model, task_rows, seed, "frozen"))
    rows = rows.assign(variant=variant, width=width, corpus_fraction=fraction, corpus_samples=len(keep),
                       names=kind, recon_loss=loss, seed=seed)
    losses = pd.DataFrame({"variant": variant, "seed": seed, "step": np.arange(1, len(curve) + 1),
                           "loss": curve[:, 0], "reference": curve[:, 1]})
    return rows, model.state_dict(), losses


def removal_order(rows: list[Sample], seed: int, task_index: int) -> list[str]:
    return list(np.random.default_rng([seed, task_index]).permutation(rows[0].markers))


def signal_first_order(cfg, rows: list[Sample], seed: int) -> list[str]:
    """The task's markers ranked by the label signal each carries alone (the probe's CV AUROC on that marker's
    quantiles, highest first; ties by name). It reads the labels on purpose: removing markers in this order takes the
    signal away as fast as one marker at a time can, the worst case set beside the claim's random order (issue 70)."""
    from neurips26.papers.cytometry_encoder.baselines import quantile_features, shared_view

    rows = shared_view(rows)
    markers, x = rows[0].markers, quantile_features(rows, list(cfg.baselines.quantiles))
    alone = {m: _probe(cfg, x[:, j::len(markers)], rows, seed) for j, m in enumerate(markers)}  # quantile-major columns
    return sorted(markers, key=lambda m: (-alone[m], m))


def _removal_rows(cfg, rows, seed, orders: dict, features: str, reduced) -> list[dict]:
    """AUROC of one representation as markers are removed in each order: `reduced(removed, fixed)` -> (probe training
    features, test features); 'refit' fits the probe on the reduced panel's features, 'fixed' fits it once on the full
    panel's and applies it to the reduced panel's (test-time removal)."""
    y = np.array([s.label for s in rows])
    full = reduced([], False)[0]
    out = []
    for order, markers in orders.items():
        for n in range(int(cfg.removal.max_removed) + 1):
            for probe_kind in ("refit", "fixed"):
                train, test = (full, full) if n == 0 else reduced(markers[:n], probe_kind == "fixed")
                auroc = probe.cv_auroc(train, y, int(cfg.probe.folds), float(cfg.probe.l2_c), seed, test_features=test)
                out.append({"task": rows[0].task, "taxonomy": corpus.taxonomy(rows), "features": features,
                            "order": order, "probe": probe_kind, "removed": n, "markers_left": len(markers) - n,
                            "removed_marker": markers[n - 1] if n else "", "auroc": auroc, "seed": seed})
    return out


def removal_curves(cfg, model, rows: list[Sample], seed: int, orders: dict, z_full: np.ndarray) -> list[dict]:
    """Test-time marker removal on one task, for the frozen encoder (the reduced panel embedded by the encoder, which
    takes any panel) and for the per-marker quantiles (a removed marker's features set to their mean over the
    samples: the fixed probe then gets no contribution from it; refit: its columns dropped)."""
    from neurips26.papers.cytometry_encoder.baselines import quantile_features, shared_view

    cache = {(): z_full}

    def encoder(removed, fixed):
        key = tuple(removed)
        if key not in cache:
            cache[key] = pretrain.embed(model, rows, int(cfg.probe.cells), seed, drop=[list(removed)] * len(rows))
        return (z_full if fixed else cache[key]), cache[key]

    shared = shared_view(rows)  # (a paper task's studies share one panel: unchanged)
    q, markers = quantile_features(shared, list(cfg.baselines.quantiles)), shared[0].markers

    def quantiles(removed, fixed):
        gone = np.isin(np.tile(np.array(markers), len(cfg.baselines.quantiles)), list(removed))
        if not fixed:
            return q[:, ~gone], q[:, ~gone]
        return q, np.where(gone, q.mean(0), q)

    return (_removal_rows(cfg, rows, seed, orders, "encoder", encoder)
            + _removal_rows(cfg, rows, seed, orders, "quantiles", quantiles))


def control_null(cfg, z: np.ndarray, rows: list[Sample], seed: int) -> list[dict]:
    """The negative control's permutation null: the probe's CV AUROC on `null.permutations` relabellings plus one more
    held-out relabelling ('fresh', perm 0): a draw from the null by construction, the claim's positive control. Labels
    are permuted within each study, as the labels are drawn (balanced within each study), so the null is exchangeable
    with the observed labelling (JOURNAL: the fix). Each seed has its own world (its own control labels), so each draws
    its own relabellings, from the seed's 'permutation_null' stream; the mean over seeds of relabelling k is one draw
    of the null of the seed mean (the seeds' relabellings are independent, each exchangeable with its own labels)."""
    from neurips26.common.pipeline.seed_streams import derived_seed

    y = np.array([s.label for s in rows])
    perms = probe.null_permutations(len(rows), int(cfg.permutation_null.permutations) + 1,
                                    derived_seed(seed, "permutation_null"), strata=np.array([s.study for s in rows]))
    values = probe.permutation_null(z, y, int(cfg.probe.folds), float(cfg.probe.l2_c), seed, perms)
    return [{"task": rows[0].task, "seed": seed, "perm": k, "kind": "fresh" if k == 0 else "permuted", "auroc": v}
            for k, v in enumerate(values)]


def run_removal(cfg, seed: int, samples: list[Sample], task_rows: dict, state: dict, with_embeddings: bool = True):
    """Remove 0 .. removal.max_removed markers of each signal task's panel at test time only, in a random order (per
    seed and task) and signal-markers-first, for the frozen encoder and the quantiles, with a refit and a fixed probe
    (removal_curves); the negative control's permutation null on the unreduced embeddings (the frozen encoder's own,
    same seed); with `with_embeddings`, every sample's embedding for the UMAP (only the first seed's are kept: the
    others skip it)."""
    model = pretrain.build_model(cfg)
    model.load_state_dict(state)
    out, null = [], []
    for index, rows in enumerate(task_rows.values()):
        if corpus.taxonomy(rows) == "positive_control":
            continue
        z = pretrain.embed(model, rows, int(cfg.probe.cells), seed)
        if corpus.taxonomy(rows) == "negative_control":  # its AUROC is noise at every step: only its null
            null += control_null(cfg, z, rows, seed)
            continue
        orders = {"random": removal_order(rows, seed, index), "signal_first": signal_first_order(cfg, rows, seed)}
        out += removal_curves(cfg, model, rows, seed, orders, z)
    if not with_embeddings:
        return pd.DataFrame(out), None, pd.DataFrame(null)
    z, h = pretrain.embed(model, samples, int(cfg.probe.cells), seed, with_cells=True)
    per = int(cfg.umap.cells_per_sample)
    embeddings = {"sample_z": z, "cell_z": h[:, :per].reshape(-1, h.shape[2]),
                  "study": np.array([s.study for s in samples]), "task": np.array([s.task for s in samples]),
                  "label": np.array([s.label for s in samples])}
    return pd.DataFrame(out), embeddings, pd.DataFrame(null)


def specialist_steps(cfg) -> int:
    """The specialists' step budget: `specialist.steps`, or the generalist's `pretrain.steps` when it is unset (null).
    The default scale sets its own (the sixth change's pilot, JOURNAL); tiny and the paper scale keep the generalist's."""
    steps = cfg.get("specialist", {}).get("steps")
    return int(cfg.pretrain.steps if steps is None else steps)


def specialist_cfg(cfg, steps: int | None = None):
    """`cfg` with pretrain.steps replaced by the specialists' budget (or `steps`): the cosine schedule spans it."""
    from omegaconf import OmegaConf

    return OmegaConf.merge(cfg, {"pretrain": {"steps": int(specialist_steps(cfg) if steps is None else steps)}})


def run_specialist(cfg, seed: int, samples: list[Sample], task_rows: dict, task: str,
                   steps: int | None = None) -> pd.DataFrame:
    """The same encoder, pretrained only on the task's own studies for `specialist_steps(cfg)` steps (or `steps`), then
    probed frozen."""
    model = train_specialist(cfg, seed, task_rows, task, steps)
    return pd.DataFrame(evaluate_frozen(cfg, model, {task: task_rows[task]}, seed, "specialist")).assign(seed=seed)


def train_specialist(cfg, seed: int, task_rows: dict, task: str, steps: int | None = None):
    """The specialist encoder of `task` (run_specialist's, and the sixth change's pilot's): pretrained on the task's
    own samples only."""
    torch.manual_seed(seed)
    model = pretrain.build_model(cfg)
    pretrain.pretrain(model, task_rows[task], specialist_cfg(cfg, steps), seed)  # (its loss curve is not kept)
    return model


def init_seed(seed: int, k: int) -> int:
    """The torch seed of random initialisation k of run seed `seed`: k = 0 is the seed itself (the random-init column
    of every task); k >= 1 are derived (SeedSequence), so no two (seed, k) pairs share an initialisation."""
    return seed if k == 0 else int(np.random.SeedSequence([seed, k]).generate_state(1)[0])


def random_inits(cfg, rows: list[Sample], seed: int, inits: int, first: float | None = None) -> list[float]:
    """Frozen AUROC of `inits` random initialisations of the encoder (init_seed(seed, k)) on one task's samples, with
    the same embedding cells and probe folds; `first` reuses init 0's AUROC (the random-init column's)."""
    out = []
    for k in range(inits):
        if k == 0 and first is not None:
            out.append(float(first))
            continue
        torch.manual_seed(init_seed(seed, k))
        out.append(_probe(cfg, pretrain.embed(pretrain.build_model(cfg), rows, int(cfg.probe.cells), seed), rows, seed))
    return out


def run_baselines(cfg, seed: int, samples: list[Sample], task_rows: dict,
                  frequencies: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """Random-init frozen encoder, per-marker quantiles, Leiden frequencies, CytoSet-style supervised set classifier;
    with `frequencies` (the universe's true population frequencies) the probe on them (the frequency ceiling); on the
    positive control, `baselines.random_inits` random initialisations (method random_init_avg, one row each)."""
    from neurips26.papers.cytometry_encoder import baselines

    b = cfg.baselines
    torch.manual_seed(seed)
    out = evaluate_frozen(cfg, pretrain.build_model(cfg), task_rows, seed, "random_init")
    single = {r["task"]: r["auroc"] for r in out}
    for task, rows in task_rows.items():
        if frequencies is not None and all(s.id in frequencies for s in rows):
            out.append({"task": task, "taxonomy": corpus.taxonomy(rows), "method": "true_frequencies",
                        "auroc": _probe(cfg, np.stack([frequencies[s.id] for s in rows]), rows, seed)})
        rows = baselines.shared_view(rows)  # the per-panel baselines see only the markers every study measures
        y = np.array([s.label for s in rows])
        features = {"quantiles": baselines.quantile_features(rows, list(b.quantiles)),
                    "leiden_freq": baselines.leiden_frequencies(rows, int(b.leiden.cells), int(b.leiden.neighbours),
                                                                float(b.leiden.resolution), seed)}
        for method, x in features.items():
            out.append({"task": task, "taxonomy": corpus.taxonomy(rows), "method": method,
                        "auroc": _probe(cfg, x, rows, seed)})
        fit = baselines.cytoset_fit_predict(rows, b.cytoset, seed)
        auroc = probe.cv_auroc(np.arange(len(rows))[:, None], y, int(cfg.probe.folds), 0.0, seed, fit_predict=fit)
        out.append({"task": task, "taxonomy": corpus.taxonomy(rows), "method": "cytoset", "auroc": auroc})
    for task, rows in task_rows.items():  # last: nothing above depends on the torch seeds it sets
        if corpus.taxonomy(rows) == "positive_control":
            values = random_inits(cfg, rows, seed, int(b.get("random_inits", 1)), first=single[task])
            out += [{"task": task, "taxonomy": "positive_control", "method": "random_init_avg", "auroc": v, "init": k}
                    for k, v in enumerate(values)]
    return pd.DataFrame(out).assign(seed=seed)


def embed_real(cfg, real_dir: Path, vectors_path: Path, state: dict, seed: int) -> dict:
    """The frozen base encoder on the real instrument files: one sample embedding per file (data set)."""
    from neurips26.papers.cytometry_encoder import marker_vectors

    samples = corpus.load_samples(real_dir, marker_vectors.load(vectors_path, str(cfg.model.names)))
    model = pretrain.build_model(cfg)
    model.load_state_dict(state)
    z = np.concatenate([pretrain.embed(model, [s], min(int(cfg.probe.cells), len(s.values)), seed) for s in samples])
    return {"sample_z": z, "sample": np.array([s.id for s in samples]), "study": np.array([s.study for s in samples]),
            "cells": np.array([len(s.values) for s in samples]), "markers": np.array([" ".join(s.markers)
                                                                                      for s in samples])}

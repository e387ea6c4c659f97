"""One job each: pretrain one sweep point (and probe it), marker removal, specialists, baselines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch

from neurips26.papers.cytometry_encoder import corpus, pretrain, probe
from neurips26.papers.cytometry_encoder.corpus import Sample


def variants(cfg) -> dict[str, tuple[int, float]]:
    """Sweep point name -> (width, corpus fraction). 'base' (full width, full corpus) is shared by both sweeps."""
    base = int(cfg.model.width)
    out = {"base": (base, 1.0)}
    out.update({f"width{int(w)}": (int(w), 1.0) for w in cfg.sweeps.capacity if int(w) != base})
    out.update({f"corpus{float(f):g}": (base, float(f)) for f in cfg.sweeps.corpus if float(f) != 1.0})
    return out


def _probe(cfg, z: np.ndarray, rows: list[Sample], seed: int) -> float:
    return probe.cv_auroc(z, np.array([s.label for s in rows]), int(cfg.probe.folds), float(cfg.probe.l2_c), seed)


def evaluate_frozen(cfg, model, task_rows: dict[str, list[Sample]], seed: int, method: str) -> list[dict]:
    out = []
    for task, rows in task_rows.items():
        z = pretrain.embed(model, rows, int(cfg.probe.cells), seed)
        out.append({"task": task, "taxonomy": corpus.taxonomy(rows), "method": method, "auroc": _probe(cfg, z, rows, seed)})
    return out


def load(cfg, data_dir: Path):
    samples = corpus.load_samples(data_dir, int(cfg.model.name_dim))
    return samples, corpus.tasks(samples, [t.name for t in cfg.tasks])


def run_pretrain(cfg, seed: int, samples: list[Sample], task_rows: dict, variant: str):
    """Pretrain one sweep point on a random fraction of the corpus; probe it frozen on every task."""
    width, fraction = variants(cfg)[variant]
    pool = corpus.corpus(samples)
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.permutation(len(pool))[: max(int(cfg.pretrain.batch), round(fraction * len(pool)))])
    model = pretrain.build_model(cfg, width)
    loss = pretrain.pretrain(model, [pool[i] for i in keep], cfg, seed)
    rows = pd.DataFrame(evaluate_frozen(cfg, model, task_rows, seed, "frozen"))
    rows = rows.assign(variant=variant, width=width, corpus_fraction=fraction, corpus_samples=len(keep),
                       recon_loss=loss, seed=seed)
    return rows, model.state_dict()


def removal_order(rows: list[Sample], seed: int, task_index: int) -> list[str]:
    return list(np.random.default_rng([seed, task_index]).permutation(rows[0].markers))


def run_removal(cfg, seed: int, samples: list[Sample], task_rows: dict, state: dict):
    """Remove 0, 1, 2, ... markers of each task's panel (a fixed random order per seed and task) at test time only."""
    model = pretrain.build_model(cfg)
    model.load_state_dict(state)
    out = []
    for index, (task, rows) in enumerate(task_rows.items()):
        order = removal_order(rows, seed, index)
        for n in range(int(cfg.removal.max_removed) + 1):
            z = pretrain.embed(model, rows, int(cfg.probe.cells), seed, drop=[order[:n]] * len(rows))
            out.append({"task": task, "taxonomy": corpus.taxonomy(rows), "removed": n, "markers_left": len(order) - n,
                        "removed_marker": order[n - 1] if n else "", "auroc": _probe(cfg, z, rows, seed), "seed": seed})
    z, h = pretrain.embed(model, samples, int(cfg.probe.cells), seed, with_cells=True)
    per = int(cfg.umap.cells_per_sample)
    embeddings = {"sample_z": z, "cell_z": h[:, :per].reshape(-1, h.shape[2]),
                  "study": np.array([s.study for s in samples]), "task": np.array([s.task for s in samples]),
                  "label": np.array([s.label for s in samples])}
    return pd.DataFrame(out), embeddings


def run_specialist(cfg, seed: int, samples: list[Sample], task_rows: dict, task: str) -> pd.DataFrame:
    """The same encoder and pretraining budget, trained only on the task's own studies, then probed frozen."""
    torch.manual_seed(seed)
    model = pretrain.build_model(cfg)
    pretrain.pretrain(model, task_rows[task], cfg, seed)
    return pd.DataFrame(evaluate_frozen(cfg, model, {task: task_rows[task]}, seed, "specialist")).assign(seed=seed)


def run_baselines(cfg, seed: int, samples: list[Sample], task_rows: dict) -> pd.DataFrame:
    """Random-init frozen encoder, per-marker quantiles, Leiden frequencies, CytoSet-style supervised set classifier."""
    from neurips26.papers.cytometry_encoder import baselines

    b = cfg.baselines
    torch.manual_seed(seed)
    out = evaluate_frozen(cfg, pretrain.build_model(cfg), task_rows, seed, "random_init")
    for task, rows in task_rows.items():
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
    return pd.DataFrame(out).assign(seed=seed)

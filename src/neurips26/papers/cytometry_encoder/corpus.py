"""The per-study AnnData files as samples (cells x markers + name vectors) and the evaluation tasks they define."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.cytometry_encoder.marker_vectors import matrix


@dataclass
class Sample:
    id: str
    study: str
    values: np.ndarray        # float32 [cells, markers], arcsinh scale
    markers: list[str]
    names: np.ndarray         # float32 [markers, name_dim]: frozen marker-name vectors
    role: str                 # pretrain (in the corpus) | heldout
    task: str                 # '' when the study belongs to no task
    taxonomy: str
    label: int                # -1 when unlabelled


def _strings(dataset) -> list[str]:
    return [v.decode() if isinstance(v, bytes) else str(v) for v in dataset[()]]


def _scalar(group, key: str, default: str = "") -> str:
    if key not in group:
        return default
    value = group[key][()]
    return value.decode() if isinstance(value, bytes) else str(value)


def read_h5ad(path: Path) -> tuple[np.ndarray, list[str], dict[str, np.ndarray], dict[str, str]]:
    """(X, markers, obs columns as strings, uns strings) of an AnnData file, read with h5py alone: the training jobs skip
    anndata's import (the on-disk layout is anndata's 0.2 dataframe / categorical encoding; a test compares)."""
    import h5py

    with h5py.File(path, "r") as f:
        x = np.asarray(f["X"][()], dtype=np.float32)
        var = f["var"]
        markers = _strings(var[var.attrs["_index"]])
        obs = {}
        for column in f["obs"].attrs["column-order"]:
            item = f["obs"][column]
            if isinstance(item, h5py.Group):  # categorical: codes into categories
                obs[str(column)] = np.asarray(_strings(item["categories"]), dtype=object)[item["codes"][()]]
            else:
                obs[str(column)] = np.asarray(_strings(item), dtype=object)
        uns = {k: _scalar(f["uns"], k) for k in f["uns"]}
    return x, markers, obs, uns


def load_samples(anndata_dir: Path, vectors: dict[str, np.ndarray]) -> list[Sample]:
    """Every sample of every .h5ad study; `vectors` maps a harmonised marker to its frozen name vector."""
    files = sorted(Path(anndata_dir).glob("*.h5ad"))
    if not files:
        raise UserError(f"{anndata_dir} holds no .h5ad studies: run the ingest stage first")
    samples = []
    for path in files:
        x, markers, obs, uns = read_h5ad(path)
        names = matrix(vectors, markers, str(path))
        codes, label = obs["sample"], obs.get("label")
        for sample in dict.fromkeys(codes):  # first-seen order: stable across runs
            rows = codes == sample
            samples.append(Sample(sample, uns["study"], x[rows], markers, names, uns.get("role", "pretrain"),
                                  uns.get("task", ""), uns.get("taxonomy", ""),
                                  int(label[rows][0]) if label is not None and label[rows][0] != "" else -1))
    return samples


def corpus(samples: list[Sample]) -> list[Sample]:
    return [s for s in samples if s.role == "pretrain"]


def tasks(samples: list[Sample], names: list[str]) -> dict[str, list[Sample]]:
    """task name -> its labelled samples, in the configured task order."""
    out = {t: [s for s in samples if s.task == t and s.label >= 0] for t in names}
    missing = [t for t, rows in out.items() if len({s.label for s in rows}) < 2]
    if missing:
        raise UserError(f"tasks {missing} have no samples with both labels in the AnnData studies")
    return out


def taxonomy(task_samples: list[Sample]) -> str:
    return task_samples[0].taxonomy

"""Frozen marker-identity vectors, computed once per run as an artifact (runs/marker_vectors.npz).

`minilm`: the bundled all-MiniLM-L6-v2 sentence encoder (common/models/minilm.py) embeds the canonical name and each of its
aliases in the table of markers.py (CD3, CD3e, CD3E, Leu-4, ...); the marker's vector is their mean, so a marker's
synonyms, CD number and gene name all contribute, and an unseen marker still gets a vector from its name. MiniLM puts
all short marker names in a narrow cone (cosine 0.7-0.9 between unrelated CD names): the vectors are centred on the mean
over the alias table's canonical names (a fixed set, so adding a study never moves them) and L2-normalised, else the
encoder's name-conditioned layers barely tell markers apart (the pilot's loss stayed above the sample-mean reference).
`hashed`: the signed character n-gram hashing of markers.name_embedding (no model; kept as the ablation).
The artifact holds both for every harmonised marker of the ingested studies (synthetic and real) plus the alias table.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.cytometry_encoder.markers import ALIASES, name_matrix

KINDS = ("minilm", "hashed")
HASHED_DIM = 128


def texts(marker: str) -> list[str]:
    return [marker, *ALIASES.get(marker, [])]


def minilm_vectors(markers: list[str]) -> np.ndarray:
    from neurips26.common.models.minilm import embed

    canonical = list(ALIASES)
    spelled = [texts(m) for m in canonical + markers]
    flat = embed([t for group in spelled for t in group])
    means, start = [], 0
    for group in spelled:
        means.append(flat[start:start + len(group)].mean(0))
        start += len(group)
    means = np.stack(means)
    centred = means[len(canonical):] - means[:len(canonical)].mean(0)
    return (centred / np.linalg.norm(centred, axis=1, keepdims=True)).astype(np.float32)


def marker_names(anndata_dirs: list[Path]) -> list[str]:
    """Every harmonised marker of the .h5ad studies in the folders, plus the alias table's canonical names."""
    import h5py

    names = dict.fromkeys(ALIASES)
    for folder in anndata_dirs:
        for path in sorted(Path(folder).glob("*.h5ad")):
            with h5py.File(path, "r") as f:
                var = f["var"]
                names.update(dict.fromkeys(v.decode() if isinstance(v, bytes) else str(v)
                                           for v in var[var.attrs["_index"]][()]))
    return list(names)


def build(markers: list[str], kinds: list[str]) -> dict[str, np.ndarray]:
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise UserError(f"model.names / marker vectors: unknown kind(s) {unknown}; expected one of {list(KINDS)}")
    out = {"names": np.array(markers, dtype=str)}
    if "minilm" in kinds:
        out["minilm"] = minilm_vectors(markers)
    out["hashed"] = name_matrix(markers, HASHED_DIM)
    return out


def load(path: Path, kind: str) -> dict[str, np.ndarray]:
    """marker name -> frozen vector of the given kind, from the artifact."""
    with np.load(path, allow_pickle=False) as data:
        if kind not in data.files:
            raise UserError(f"{path} holds no '{kind}' marker vectors (it has {[k for k in data.files if k != 'names']})"
                            ": rerun the marker_vectors stage with this model.names")
        return dict(zip(data["names"].tolist(), data[kind]))


def matrix(vectors: dict[str, np.ndarray], markers: list[str], where: str) -> np.ndarray:
    missing = [m for m in markers if m not in vectors]
    if missing:
        raise UserError(f"{where}: markers {missing} have no frozen name vector: rerun the marker_vectors stage")
    return np.stack([vectors[m] for m in markers]).astype(np.float32)

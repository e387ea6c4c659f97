"""2-D maps of the frozen sample and cell embeddings (the batch-effect picture): scanpy's UMAP, PCA at tiny scale.

Its own module, free of torch: the umap job reads saved embeddings only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def umap_table(embeddings: dict, method: str, neighbours: int, seed: int) -> pd.DataFrame:
    """2-D coordinates of the sample and cell embeddings: scanpy's UMAP, or PCA (numpy SVD) at tiny scale, where
    numba's compilation of UMAP alone would take ~20 s."""
    frames = []
    per = len(embeddings["cell_z"]) // len(embeddings["sample_z"])
    for kind, z in (("sample", embeddings["sample_z"]), ("cell", embeddings["cell_z"])):
        repeat = 1 if kind == "sample" else per
        xy = _umap(np.asarray(z, dtype=np.float32), neighbours, seed) if method == "umap" else _pca(z)
        frames.append(pd.DataFrame({"kind": kind, "x": xy[:, 0], "y": xy[:, 1],
                                    "study": np.repeat(embeddings["study"], repeat),
                                    "task": np.repeat(embeddings["task"], repeat),
                                    "label": np.repeat(embeddings["label"], repeat)}))
    return pd.concat(frames, ignore_index=True)


def _pca(z: np.ndarray) -> np.ndarray:
    centred = z - z.mean(0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    return u[:, :2] * s[:2] * np.sign(u[0, :2] + 1e-12)  # sign fixed by the first row: same picture every run


def _umap(z: np.ndarray, neighbours: int, seed: int) -> np.ndarray:
    """scanpy's UMAP on a kNN graph built with scikit-learn: scanpy 1.11's own neighbour search calls a sparse-matrix
    method SciPy 1.17 removed (csr_array.getnnz), so the graph is handed to it ready-made."""
    import anndata as ad
    import scanpy as sc
    from sklearn.neighbors import kneighbors_graph

    adata = ad.AnnData(z)
    graph = kneighbors_graph(z, neighbours, mode="distance", include_self=False).tocsr()
    adata.obsp["distances"] = graph
    adata.obsp["connectivities"] = (graph > 0).astype(np.float64).maximum((graph > 0).T).tocsr()
    adata.uns["neighbors"] = {"connectivities_key": "connectivities", "distances_key": "distances",
                              "params": {"n_neighbors": neighbours, "method": "umap"}}
    sc.tl.umap(adata, random_state=seed)
    return adata.obsm["X_umap"]

"""Baselines on a task's own panel: per-marker quantiles, Leiden population frequencies (scanpy), and a CytoSet-style
supervised set classifier. (The specialist and random-init encoders reuse model.py and pretrain.py.)"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from neurips26.common.models import optim
from neurips26.papers.cytometry_encoder.corpus import Sample


def shared_view(samples: list[Sample]) -> list[Sample]:
    """The samples restricted to the markers every one of them measures (in the first sample's order): what a per-panel
    baseline can align across studies whose panels differ (the positive-control task). Unchanged for a common panel."""
    from dataclasses import replace

    shared = [m for m in samples[0].markers if all(m in s.markers for s in samples)]
    if all(s.markers == shared for s in samples):
        return samples
    if not shared:
        return [replace(s, values=np.zeros((len(s.values), 1), np.float32), markers=["none"]) for s in samples]
    return [replace(s, values=s.values[:, [s.markers.index(m) for m in shared]], markers=shared) for s in samples]


def quantile_features(samples: list[Sample], quantiles: list[float]) -> np.ndarray:
    return np.stack([np.quantile(s.values, quantiles, axis=0).ravel() for s in samples])


def leiden_frequencies(samples: list[Sample], cells: int, neighbours: int, resolution: float, seed: int) -> np.ndarray:
    """Cluster a pooled subsample of the task's cells with scanpy's Leiden (on a kNN graph built here, see README),
    assign every cell to its nearest cluster centroid, return per-sample cluster frequencies. Unsupervised and label-free,
    like the frozen encoder, so clustering all of the task's samples is no leak."""
    import anndata as ad
    import scanpy as sc
    from sklearn.neighbors import kneighbors_graph

    rng = np.random.default_rng(seed)
    per = max(1, cells // len(samples))
    pooled = np.concatenate([s.values[rng.choice(len(s.values), min(per, len(s.values)), replace=False)] for s in samples])
    graph = kneighbors_graph(pooled, neighbours, mode="connectivity", include_self=False)
    adata = ad.AnnData(pooled)
    sc.tl.leiden(adata, resolution=resolution, adjacency=(graph + graph.T).tocsr().astype(np.float64), flavor="igraph",
                 n_iterations=2, directed=False, random_state=seed)
    clusters = adata.obs["leiden"].astype(int).to_numpy()
    centroids = np.stack([pooled[clusters == k].mean(0) for k in range(clusters.max() + 1)])
    freq = []
    for s in samples:
        nearest = ((s.values[:, None, :] - centroids[None]) ** 2).sum(-1).argmin(1)
        freq.append(np.bincount(nearest, minlength=len(centroids)) / len(s.values))
    return np.stack(freq)


class DeepSet(nn.Module):
    """CytoSet-style: per-cell MLP, mean and max pooling over cells, linear read-out."""

    def __init__(self, markers: int, width: int):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(markers, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.rho = nn.Linear(2 * width, 1)

    def forward(self, x):  # [B, C, M]
        h = self.phi(x)
        return self.rho(torch.cat([h.mean(1), h.amax(1)], -1)).squeeze(-1)


def cytoset_fit_predict(samples: list[Sample], cfg, seed: int):
    """fit_predict for probe.cv_auroc: features are sample indices; trains a fresh DeepSet on the training fold."""
    # ingest already subsampled cells at random: the first `cells` of each sample are a random subset
    cells = min([int(cfg.cells)] + [len(s.values) for s in samples])
    x_all = torch.from_numpy(np.stack([s.values[:cells] for s in samples]))
    mu, sd = x_all.mean((0, 1)), x_all.std((0, 1)) + 1e-6

    def fit_predict(train_idx, train_y, test_idx):
        torch.manual_seed(seed)
        model = DeepSet(x_all.shape[2], int(cfg.width))
        optimiser = optim.Adam(model.parameters(), lr=float(cfg.lr), weight_decay=float(cfg.weight_decay))
        x, y = (x_all[train_idx.ravel()] - mu) / sd, torch.as_tensor(train_y, dtype=torch.float32)
        for _ in range(int(cfg.epochs)):
            loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        with torch.no_grad():
            return model((x_all[test_idx.ravel()] - mu) / sd).numpy()

    return fit_predict

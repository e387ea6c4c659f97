"""DebiasPL (Wang et al., CVPR 2022) on a head's logits: counterfactual debiasing of the pseudo-labels and the adaptive
marginal loss, both from an EMA of the predicted class marginal p_bar.

    pseudo-label   softmax(z_weak - lambda log p_bar)              the classifier's response bias removed
    loss           CE(z_strong + lambda log p_bar, pseudo-label)    margin of class j = lambda log(1 / p_bar_j)

Published DebiasPL keeps one global p_bar. Under DCI the class totals are uniform by construction, so the global
marginal stays near uniform and the debiasing near a no-op; the conditional variant keeps one p_bar per inferred
domain cluster (k-means of the unlabelled features), where the class marginal is skewed."""

from __future__ import annotations

import numpy as np
import torch


def domain_clusters(x: np.ndarray, n_clusters: int, seed: int) -> np.ndarray:
    """Cluster index of every row of x (k-means, the stand-in for inferred domains; no domain label is used)."""
    from sklearn.cluster import KMeans

    return KMeans(n_clusters=n_clusters, n_init=10, random_state=seed).fit_predict(x)


def debiased_probs(weak_logits: torch.Tensor, log_marginal: torch.Tensor, strength: float) -> torch.Tensor:
    """softmax(z - strength log p_bar); log_marginal [K] (global) or [n, K] (each row's cluster)."""
    return torch.softmax(weak_logits - strength * log_marginal, -1)


def update_marginals(marginals: torch.Tensor, probs: torch.Tensor, cluster: torch.Tensor, momentum: float) -> None:
    """EMA update, in place, of each cluster's marginal [G, K] with the mean prediction of its rows in the batch."""
    for g in cluster.unique():
        rows = cluster == g
        marginals[g] = momentum * marginals[g] + (1 - momentum) * probs[rows].mean(0)


def margin_logits(strong_logits: torch.Tensor, log_marginal: torch.Tensor, strength: float) -> torch.Tensor:
    """The adaptive marginal loss's logits: z + strength log p_bar (cross-entropy on these)."""
    return strong_logits + strength * log_marginal

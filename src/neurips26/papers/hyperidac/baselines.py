"""Baselines that are not a head trained with pseudo-labels: zero-shot, DPA-style prototypes, and the labelled
BoDA-style reference (every pool label and its domain known; balanced per-domain softmax)."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from neurips26.papers.hyperidac.method import StaticHead, cosine_logits
from neurips26.papers.hyperidac.training import train_supervised


def zero_shot(prototypes: torch.Tensor, x: torch.Tensor, tau: float) -> np.ndarray:
    return cosine_logits(x, prototypes, tau).argmax(1).numpy()


def dpa(prototypes: torch.Tensor, x_lab: torch.Tensor, y_lab: torch.Tensor, x_unl: torch.Tensor, cfg):
    """Dual prototypes (DPA-style, no gradient): text prototypes t_c and image prototypes (means of the labelled and
    confidently pseudo-labelled features) are mixed; rounds of re-estimation. Returns a predictor."""
    tau, d = cfg.model.tau, cfg.dpa
    k = len(prototypes)
    image = prototypes.clone()
    for c in range(k):
        if (y_lab == c).any():
            image[c] = F.normalize(x_lab[y_lab == c], dim=1).mean(0)

    def probs(x):
        return (d.mix * torch.softmax(cosine_logits(x, prototypes, tau), 1)
                + (1 - d.mix) * torch.softmax(cosine_logits(x, image, tau), 1))

    for _ in range(int(d.rounds)):
        conf, label = probs(x_unl).max(1)
        keep = conf >= d.confidence
        feats = torch.cat([F.normalize(x_lab, dim=1), F.normalize(x_unl[keep], dim=1)])
        labels = torch.cat([y_lab, label[keep]])
        for c in range(k):
            if (labels == c).any():
                image[c] = feats[labels == c].mean(0)
    return lambda x: probs(x).argmax(1).numpy()


def boda_labelled(prototypes: torch.Tensor, x: torch.Tensor, y: torch.Tensor, domain: torch.Tensor, cfg, seed: int):
    """The labelled reference: a static head trained on every pool label with the per-domain balanced softmax
    (logits + log n(c | d) in training), so the domain-class skew of the allocation is divided out."""
    k, n_dom = len(prototypes), int(domain.max()) + 1
    counts = torch.zeros(n_dom, k)
    counts.index_put_((domain, y), torch.ones(len(y)), accumulate=True)
    log_prior = ((counts + 1) / (counts + 1).sum(1, keepdim=True)).log()
    head = StaticHead(prototypes, cfg.model.tau)
    return train_supervised(head, x, y, cfg, seed, offsets=log_prior[domain])

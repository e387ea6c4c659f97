"""HyperIDAC on frozen features f (L2-normalised): domain prior, hypernetwork head, multi-level pseudo-labels.

    p0      = softmax(cos(f, t_c) / tau)                          zero-shot, t_c the class ("text") prototypes
    pi(x)   = softmax(g([f, p0]))                                 prior over D latent domains
    W(x)    = W0 + sum_d pi_d A_d B_d                             instance-specific weights (rank-r updates)
    e_c(x)  = t_c + U_c pi(x)                                     domain-conditioned class embeddings
    logits  = f W(x) + b + cos(f, e_c(x)) / tau

With a constant prior pi the head is the static classifier f W + b + cos(f, e_c) / tau with W = W0 + sum_d pi_d A_d B_d
and e_c = t_c + U_c pi (`HyperHead.collapse`, checked in the tests).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def cosine_logits(f: torch.Tensor, emb: torch.Tensor, tau: float) -> torch.Tensor:
    """cos(f, emb_c) / tau for emb [K, F] (shared) or [n, K, F] (per instance)."""
    f = F.normalize(f, dim=-1)
    emb = F.normalize(emb, dim=-1)
    if emb.dim() == 2:
        return f @ emb.T / tau
    return torch.einsum("nf,nkf->nk", f, emb) / tau


class StaticHead(nn.Module):
    """The static classifier: logits = f W + b + cos(f, e_c) / tau, e_c learnable (initialised at the prototypes)."""

    def __init__(self, prototypes: torch.Tensor, tau: float, learn_embeddings: bool = True):
        super().__init__()
        k, dim = prototypes.shape
        self.tau = tau
        self.linear = nn.Linear(dim, k)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)
        self.embeddings = nn.Parameter(prototypes.clone(), requires_grad=learn_embeddings)

    def forward(self, f: torch.Tensor) -> tuple[torch.Tensor, None]:
        return self.linear(f) + cosine_logits(f, self.embeddings, self.tau), None


class HyperHead(nn.Module):
    def __init__(self, prototypes: torch.Tensor, tau: float, latent_domains: int, rank: int, hidden: int,
                 use_prior: bool = True, use_embeddings: bool = True):
        super().__init__()
        k, dim = prototypes.shape
        self.tau, self.n_domains = tau, latent_domains
        self.use_prior, self.use_embeddings = use_prior, use_embeddings
        self.register_buffer("prototypes", prototypes.clone())
        self.base = nn.Linear(dim, k)
        nn.init.zeros_(self.base.weight)
        nn.init.zeros_(self.base.bias)
        self.A = nn.Parameter(torch.randn(latent_domains, dim, rank) / dim ** 0.5)
        self.B = nn.Parameter(torch.zeros(latent_domains, rank, k))
        self.U = nn.Parameter(torch.zeros(k, dim, latent_domains), requires_grad=use_embeddings)
        self.prior_net = nn.Sequential(nn.Linear(dim + k, hidden), nn.ReLU(), nn.Linear(hidden, latent_domains))

    def zero_shot(self, f: torch.Tensor) -> torch.Tensor:
        return torch.softmax(cosine_logits(f, self.prototypes, self.tau), dim=-1)

    def prior(self, f: torch.Tensor) -> torch.Tensor:
        if not self.use_prior:
            return torch.full((len(f), self.n_domains), 1.0 / self.n_domains, device=f.device)
        return torch.softmax(self.prior_net(torch.cat([f, self.zero_shot(f)], dim=-1)), dim=-1)

    def parameters_for(self, f: torch.Tensor, pi: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The generated parameters: W(x) [n, F, K] and e(x) [n, K, F] (what the hypernetwork outputs)."""
        weights = self.base.weight.T[None] + torch.einsum("nd,dfr,drk->nfk", pi, self.A, self.B)
        emb = self.prototypes[None] + torch.einsum("kfd,nd->nkf", self.U, pi)
        return weights, emb

    def forward(self, f: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pi = self.prior(f)
        # f W(x) without materialising W(x): f W0 + sum_d pi_d (f A_d) B_d
        low_rank = torch.einsum("nd,ndk->nk", pi, torch.einsum("nf,dfr,drk->ndk", f, self.A, self.B))
        emb = self.prototypes[None] + torch.einsum("kfd,nd->nkf", self.U, pi)
        return self.base(f) + low_rank + cosine_logits(f, emb, self.tau), pi

    def collapse(self, pi: torch.Tensor) -> StaticHead:
        """The static classifier this head equals when the prior is the constant `pi` [D]."""
        static = StaticHead(self.prototypes, self.tau)
        with torch.no_grad():
            static.linear.weight.copy_((self.base.weight.T + torch.einsum("d,dfr,drk->fk", pi, self.A, self.B)).T)
            static.linear.bias.copy_(self.base.bias)
            static.embeddings.copy_(self.prototypes + torch.einsum("kfd,d->kf", self.U, pi))
        return static


def prior_regularisers(pi: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(balance, entropy): KL(mean pi || uniform) and the mean per-sample entropy of pi."""
    mean = pi.mean(0).clamp_min(1e-8)
    balance = (mean * (mean * len(mean)).log()).sum()
    entropy = -(pi * pi.clamp_min(1e-8).log()).sum(1).mean()
    return balance, entropy


def history_vote(history: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Majority label of each row of `history` [n, H] (-1 = no record yet) and its share of all H slots."""
    counts = np.zeros((len(history), n_classes))
    for column in history.T:
        valid = column >= 0
        counts[np.flatnonzero(valid), column[valid]] += 1
    return counts.argmax(1), counts.max(1) / max(history.shape[1], 1)


def pseudo_labels(teacher_probs: np.ndarray, history: np.ndarray, zero_shot: np.ndarray, confidence: float,
                  agreement: float, use_history: bool = True, use_fallback: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Multi-level pseudo-labels: (labels, level) with level 1 = the EMA teacher's hard label (top probability >=
    confidence), else 2 = the label history's majority (share >= agreement), else 3 = the zero-shot label; 0 = none
    (the level is switched off)."""
    labels = teacher_probs.argmax(1)
    level = np.where(teacher_probs.max(1) >= confidence, 1, 0)
    if use_history:
        vote, share = history_vote(history, teacher_probs.shape[1])
        second = (level == 0) & (share >= agreement)
        labels, level = np.where(second, vote, labels), np.where(second, 2, level)
    if use_fallback:
        third = level == 0
        labels, level = np.where(third, zero_shot, labels), np.where(third, 3, level)
    return labels, level

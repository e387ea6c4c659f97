"""RLDP (referential latent difficulty perception) and AdaSwitch (think / no-think routing under a compute budget).

RLDP, per layer l: v_l = mean h_l(hard refs) - mean h_l(easy refs); s_l(x) = (h_l(x) - m_l) . v_l / |v_l| with m_l the
midpoint of the two means. The layer is chosen on the references alone, by leave-one-out: each reference is scored by
the direction of the other seven; the layer whose held-out scores separate hard from easy best (AUROC, ties broken by
the held-out margin in units of the pooled spread) wins. One forward pass per query, no training, no rollouts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata


def auroc(score: np.ndarray, positive: np.ndarray) -> float:
    """P(score of a positive > score of a negative), ties counted one half (Mann-Whitney)."""
    positive = np.asarray(positive, dtype=bool)
    n_pos, n_neg = positive.sum(), (~positive).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(score)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def direction(h_easy: np.ndarray, h_hard: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unit direction, midpoint) from reference hidden states of one layer, each (k, d)."""
    mu_e, mu_h = h_easy.mean(0), h_hard.mean(0)
    v = mu_h - mu_e
    norm = np.linalg.norm(v)
    return (v / norm if norm > 0 else v), (mu_e + mu_h) / 2


def score(h: np.ndarray, unit: np.ndarray, mid: np.ndarray) -> np.ndarray:
    return (h - mid) @ unit


def loo_quality(h_easy: np.ndarray, h_hard: np.ndarray) -> tuple[float, float]:
    """(AUROC, margin) of leave-one-out scores of the references at one layer."""
    h = np.concatenate([h_easy, h_hard])
    hard = np.r_[np.zeros(len(h_easy), bool), np.ones(len(h_hard), bool)]
    held = np.empty(len(h))
    for i in range(len(h)):
        keep = np.arange(len(h)) != i
        unit, mid = direction(h[keep & ~hard], h[keep & hard])
        held[i] = score(h[i:i + 1], unit, mid)[0]
    spread = np.sqrt((held[hard].var() + held[~hard].var()) / 2) + 1e-12
    return auroc(held, hard), float((held[hard].mean() - held[~hard].mean()) / spread)


@dataclass
class RLDP:
    layer: int
    unit: np.ndarray
    mid: np.ndarray
    loo: list[tuple[float, float]]   # per layer: (LOO AUROC, LOO margin)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """Difficulty scores of (n, layers + 1, d) hidden states."""
        return score(states[:, self.layer], self.unit, self.mid)


def fit_rldp(ref_easy: np.ndarray, ref_hard: np.ndarray, layer: int | None = None) -> RLDP:
    """RLDP from (k, layers + 1, d) reference states; the layer by leave-one-out unless given."""
    loo = [loo_quality(ref_easy[:, j], ref_hard[:, j]) for j in range(ref_easy.shape[1])]
    if layer is None:
        layer = max(range(len(loo)), key=lambda j: (loo[j][0], loo[j][1]))
    unit, mid = direction(ref_easy[:, layer], ref_hard[:, layer])
    return RLDP(layer, unit, mid, loo)


def order(score, tiebreak=None) -> np.ndarray:
    """Indices from the highest (score, tiebreak) down: the order in which AdaSwitch sends queries to think. Ties in
    the score (prompt length, rollout agreement) are broken by `tiebreak` (uniform draws), so that a threshold can send
    part of a tied group to think, the same share on any split (a randomised threshold rule)."""
    score = np.asarray(score, dtype=float)
    tiebreak = np.zeros(len(score)) if tiebreak is None else np.asarray(tiebreak, dtype=float)
    return np.lexsort((-tiebreak, -score))


def frontier(score: np.ndarray, think_correct, think_tokens, plain_correct, plain_tokens,
             overhead_tokens=None, plain_answer_correct=None, tiebreak=None) -> dict[str, np.ndarray]:
    """AdaSwitch's accuracy-cost frontier: route the k highest-scored queries to think, k = 0..n (every threshold tau).
    Cost = mean generated tokens per query of the chosen route, plus the router's own generated tokens (rollouts).
    `plain_answer_correct` replaces the no-think route's correctness when the router already holds an answer (the
    rollouts' majority) and then no no-think tokens are spent."""
    n = len(score)
    order_ = order(score, tiebreak)
    overhead = np.zeros(n) if overhead_tokens is None else np.asarray(overhead_tokens, dtype=float)
    if plain_answer_correct is not None:
        plain_correct, plain_tokens = plain_answer_correct, np.zeros(n)
    tc, tt = np.asarray(think_correct, float)[order_], np.asarray(think_tokens, float)[order_]
    pc, pt = np.asarray(plain_correct, float)[order_], np.asarray(plain_tokens, float)[order_]
    head_c, head_t = np.r_[0, np.cumsum(tc)], np.r_[0, np.cumsum(tt)]
    tail_c, tail_t = np.r_[np.cumsum(pc[::-1])[::-1], 0], np.r_[np.cumsum(pt[::-1])[::-1], 0]
    return {"think_fraction": np.arange(n + 1) / n, "accuracy": (head_c + tail_c) / n,
            "tokens": (head_t + tail_t + overhead.sum()) / n}


def cost_to_reach(front: dict[str, np.ndarray], accuracy: float) -> float:
    """The least mean cost at which the frontier reaches `accuracy` (NaN when it never does)."""
    ok = front["accuracy"] >= accuracy - 1e-12
    return float(front["tokens"][ok].min()) if ok.any() else float("nan")


def threshold(front: dict[str, np.ndarray], score, tiebreak, accuracy: float) -> tuple[float, float]:
    """tau = (score, tiebreak) of the last query sent to think at the cheapest frontier point reaching `accuracy`
    (+inf when no query needs to think): chosen on the validation split, applied to the test split by `route`."""
    ok = np.flatnonzero(front["accuracy"] >= accuracy - 1e-12)
    k = int(ok[np.argmin(front["tokens"][ok])])  # the number of validation queries sent to think
    if k == 0:
        return float("inf"), float("inf")
    last = order(score, tiebreak)[k - 1]
    return float(np.asarray(score, float)[last]), float(np.asarray(tiebreak, float)[last])


def route(score, tiebreak, tau: tuple[float, float]) -> np.ndarray:
    """True where a query goes to think: (score, tiebreak) >= tau, compared lexicographically."""
    score, tiebreak = np.asarray(score, float), np.asarray(tiebreak, float)
    return (score > tau[0]) | ((score == tau[0]) & (tiebreak >= tau[1]))

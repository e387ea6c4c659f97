"""K-armed bandits: how well does a gated Monte-Carlo policy gradient point along the exact one?

A softmax policy pi = softmax(theta) over K arms with means mu has the exact gradient dJ/dtheta = pi * (mu - pi.mu).
For each of R random problems one batch of B actions is sampled; each estimator (REINFORCE, DG, zero-price gate, each
screen at each keep rate) builds its update from that batch. Reported: the cosine with the exact gradient, and the
update's parallel (signal) and perpendicular (noise) parts, relative to |dJ| and normalised as a masked full-batch
gradient (sum over kept / B), so the two parts say how much of the full batch's signal and noise a gate keeps.
Everything is vectorised over replicates (NumPy), so one seed is one array program.
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.kondo_gate.method import dg_weights, kept_count


def _standardise(x: np.ndarray) -> np.ndarray:
    return (x - x.mean(1, keepdims=True)) / (x.std(1, keepdims=True) + 1e-8)


def bandit_priority(screen: str, advantage, logp, rng, alpha: float) -> np.ndarray:
    """NumPy twin of baselines.priority, batched over replicates (rows)."""
    return {"delight": lambda: advantage * (-logp), "random": lambda: rng.random(advantage.shape),
            "advantage": lambda: advantage, "abs_advantage": lambda: np.abs(advantage), "surprisal": lambda: -logp,
            "additive": lambda: alpha * _standardise(advantage) + (1 - alpha) * _standardise(-logp)}[screen]()


def top_k_mask(prio: np.ndarray, k: int) -> np.ndarray:
    """Row-wise mask of the k highest priorities (ties to the lower index, like method.select)."""
    order = np.argsort(-prio, axis=1, kind="stable")[:, :k]
    mask = np.zeros(prio.shape, dtype=bool)
    np.put_along_axis(mask, order, True, axis=1)
    return mask


def exact_gradient(pi: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """d/dtheta of J = sum_a softmax(theta)_a mu_a, row-wise: pi * (mu - pi.mu)."""
    return pi * (mu - (pi * mu).sum(1, keepdims=True))


def sample_problems(cfg, rng: np.random.Generator):
    """R random problems and one sampled batch each: pi (R x K), exact gradient, actions, advantages, log pi."""
    R, K, B = int(cfg.replicates), int(cfg.arms), int(cfg.batch)
    theta = rng.normal(0.0, float(cfg.logit_scale), (R, K))
    pi = np.exp(theta - theta.max(1, keepdims=True))
    pi /= pi.sum(1, keepdims=True)
    mu = rng.normal(0.0, 1.0, (R, K))
    exact = exact_gradient(pi, mu)
    cdf = np.cumsum(pi, axis=1)
    actions = np.minimum((rng.random((R, B, 1)) > cdf[:, None, :]).sum(2), K - 1)
    reward = np.take_along_axis(mu, actions, 1) + float(cfg.reward_noise) * rng.normal(size=(R, B))
    advantage = reward - reward.mean(1, keepdims=True)
    logp = np.log(np.take_along_axis(pi, actions, 1))
    return pi, exact, actions, advantage, logp


def update(pi, actions, weights, mask) -> np.ndarray:
    """sum_b mask * w * grad log pi(a_b) / B, with grad log pi(a) = e_a - pi (R x K)."""
    R, K = pi.shape
    w = weights * mask
    onehot_sum = np.zeros((R, K))
    np.add.at(onehot_sum, (np.repeat(np.arange(R), actions.shape[1]), actions.ravel()), w.ravel())
    return (onehot_sum - w.sum(1, keepdims=True) * pi) / actions.shape[1]


def decompose(g: np.ndarray, exact: np.ndarray) -> dict:
    """Mean cosine with the exact gradient, and mean parallel / perpendicular norms relative to |exact|."""
    norm = np.linalg.norm(exact, axis=1)
    unit = exact / norm[:, None]
    parallel = (g * unit).sum(1)
    perpendicular = np.linalg.norm(g - parallel[:, None] * unit, axis=1)
    g_norm = np.linalg.norm(g, axis=1)
    cosine = np.where(g_norm > 0, parallel / np.maximum(g_norm, 1e-300), 0.0)
    return {"cosine": cosine.mean(), "signal": (parallel / norm).mean(), "noise": (perpendicular / norm).mean()}


def analyse(cfg, alpha: float, seed: int) -> list[dict]:
    """One row per estimator: method, keep rate, mean kept fraction, cosine, signal, noise."""
    rng = np.random.default_rng(seed)
    pi, exact, actions, advantage, logp = sample_problems(cfg, rng)
    everything = np.ones(advantage.shape, dtype=bool)
    estimators = [("reinforce", 1.0, advantage, everything),
                  ("dg", 1.0, dg_weights(advantage, logp, float(cfg.eta)), everything),
                  ("price0_delight", float("nan"), advantage, advantage * (-logp) > 0)]
    B = advantage.shape[1]
    for screen in cfg.screens:
        for rate in cfg.keep_rates:
            prio = bandit_priority(screen, advantage, logp, rng, alpha)
            estimators.append((screen, float(rate), advantage, top_k_mask(prio, kept_count(B, float(rate)))))
    rows = []
    for method, rate, weights, mask in estimators:
        stats = decompose(update(pi, actions, weights, mask), exact)
        rows.append({"method": method, "keep_rate": rate, "kept_fraction": mask.mean(), **stats})
    return rows

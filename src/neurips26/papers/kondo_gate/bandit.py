"""K-armed bandits: how well does a gated Monte-Carlo policy gradient point along the exact one?

A softmax policy pi = softmax(theta) over K arms with means mu has the exact gradient dJ/dtheta = pi * (mu - pi.mu).
For each of R random problems one batch of B actions is sampled; each estimator (REINFORCE, DG, the paper's
zero-price Bernoulli gate and its hard eta -> 0 limit, a random gate at the same keep rate, each screen at each keep rate)
builds its update from that batch. The papers' bandit (`problem: one_correct`): one correct arm, reward 1[a = c], no
noise, advantage against the exact value V = pi_c; the Gaussian-mean, noisy-reward bandit is a labelled extra.
Reported: the cosine with the exact gradient, and the
update's parallel (signal) and perpendicular (noise) parts, relative to |dJ| and normalised as a masked full-batch
gradient (sum over kept / B), so the two parts say how much of the full batch's signal and noise a gate keeps.
Everything is vectorised over replicates (NumPy), so one seed is one array program.
"""

from __future__ import annotations

import numpy as np

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.kondo_gate.method import dg_weights, keep_probability, kept_count


def bandit_priority(screen: str, advantage, logp, rng, alpha: float) -> np.ndarray:
    """NumPy twin of baselines.priority, batched over replicates (rows)."""
    return {"delight": lambda: advantage * (-logp), "random": lambda: rng.random(advantage.shape),
            "advantage": lambda: advantage, "abs_advantage": lambda: np.abs(advantage), "surprisal": lambda: -logp,
            "additive": lambda: alpha * advantage + (1 - alpha) * (-logp)}[screen]()


def top_k_mask(prio: np.ndarray, k: int) -> np.ndarray:
    """Row-wise mask of the k highest priorities (ties to the lower index, like method.select)."""
    order = np.argsort(-prio, axis=1, kind="stable")[:, :k]
    mask = np.zeros(prio.shape, dtype=bool)
    np.put_along_axis(mask, order, True, axis=1)
    return mask


def exact_gradient(pi: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """d/dtheta of J = sum_a softmax(theta)_a mu_a, row-wise: pi * (mu - pi.mu)."""
    return pi * (mu - (pi * mu).sum(1, keepdims=True))


def sample_batch(cfg, rng: np.random.Generator) -> dict:
    """R random problems and one sampled batch of B actions each.

    `problem: one_correct` (the papers' bandit): one correct arm per problem, mu = e_c, so the exact gradient is
    pi_c (e_c - pi) and every correct-arm sample's term (e_c - pi) is parallel to it. `problem: gaussian` (the labelled
    extra): arm means mu ~ N(0, 1), reward = mu_a + noise.
    """
    R, K, B = int(cfg.replicates), int(cfg.arms), int(cfg.batch)
    theta = rng.normal(0.0, float(cfg.logit_scale), (R, K))
    pi = np.exp(theta - theta.max(1, keepdims=True))
    pi /= pi.sum(1, keepdims=True)
    problem = str(cfg.problem)
    if problem == "gaussian":
        mu = rng.normal(0.0, 1.0, (R, K))
    elif problem == "one_correct":
        mu = np.eye(K)[rng.integers(0, K, R)]
    else:
        raise UserError(f"config: bandit problem must be gaussian or one_correct, got {problem!r}")
    exact = exact_gradient(pi, mu)
    cdf = np.cumsum(pi, axis=1)
    actions = np.minimum((rng.random((R, B, 1)) > cdf[:, None, :]).sum(2), K - 1)
    reward = np.take_along_axis(mu, actions, 1) + float(cfg.reward_noise) * rng.normal(size=(R, B))
    logp = np.log(np.take_along_axis(pi, actions, 1))
    return {"pi": pi, "mu": mu, "exact": exact, "actions": actions, "reward": reward, "logp": logp}


def advantage(batch: dict, baseline: str) -> np.ndarray:
    """A = r - b: b = the policy's exact expected reward V = pi . mu (`value`, the papers' bandit analysis) or the
    batch mean reward (`batch_mean`, the official code's training baseline)."""
    if baseline == "value":
        return batch["reward"] - (batch["pi"] * batch["mu"]).sum(1, keepdims=True)
    if baseline == "batch_mean":
        return batch["reward"] - batch["reward"].mean(1, keepdims=True)
    raise UserError(f"config: bandit baseline must be value or batch_mean, got {baseline!r}")


def sample_problems(cfg, rng: np.random.Generator):
    """pi (R x K), exact gradient, actions, advantages (cfg.baseline, default batch_mean) and log pi."""
    b = sample_batch(cfg, rng)
    return b["pi"], b["exact"], b["actions"], advantage(b, str(cfg.get("baseline", "batch_mean"))), b["logp"]


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


def analyse(cfg, alpha: float, seed: int, setting: str = "main") -> list[dict]:
    """One row per estimator: setting, method, keep rate, mean kept fraction, cosine, signal, noise.

    `kondo_price0`: the paper's gate G ~ Bernoulli(sigma(chi / eta)) at price 0 (eta = the DG temperature);
    `hard_price0`: its eta -> 0 limit, keep chi > 0; `random_matched`: every sample kept with probability equal to the
    zero-price gate's mean kept fraction (the same expected backward passes, no screen)."""
    rng = np.random.default_rng(seed)
    batch = sample_batch(cfg, rng)
    pi, exact, actions, logp = batch["pi"], batch["exact"], batch["actions"], batch["logp"]
    adv = advantage(batch, str(cfg.baseline))
    chi = adv * (-logp)
    everything = np.ones(adv.shape, dtype=bool)
    gate_uniform = rng.random(adv.shape)  # one uniform per sample, shared by the zero-price gates
    kondo = gate_uniform < keep_probability(chi, 0.0, float(cfg.eta))
    estimators = [("reinforce", 1.0, adv, everything),
                  ("dg", 1.0, dg_weights(adv, logp, float(cfg.eta)), everything),
                  ("kondo_price0", float("nan"), adv, kondo),
                  ("hard_price0", float("nan"), adv, gate_uniform < keep_probability(chi, 0.0, 0.0)),
                  ("random_matched", float("nan"), adv, rng.random(adv.shape) < kondo.mean())]
    B = adv.shape[1]
    for screen in cfg.screens:
        for rate in cfg.keep_rates:
            prio = bandit_priority(screen, adv, logp, rng, alpha)
            estimators.append((screen, float(rate), adv, top_k_mask(prio, kept_count(B, float(rate)))))
    rows = []
    for method, rate, weights, mask in estimators:
        stats = decompose(update(pi, actions, weights, mask), exact)
        rows.append({"setting": setting, "method": method, "keep_rate": rate, "kept_fraction": mask.mean(), **stats})
    return rows

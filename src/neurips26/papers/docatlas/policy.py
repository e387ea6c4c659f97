"""A small tool policy (an MLP over the harness agent's decision features -> read more / search / answer), trained on
the harness with REINFORCE: reward = MMLongBench-Doc score - step_cost * steps, a running-mean baseline, an entropy bonus
and Adam. numpy only (deterministic, one thread). Training questions come from documents of a separate seed stream."""

from __future__ import annotations

import numpy as np

from neurips26.papers.docatlas.agents import DECISIONS, N_FEATURES, HarnessAgent, run_episode


class MLPPolicy:
    def __init__(self, rng: np.random.Generator, hidden: int = 32):
        self.params = {"w1": rng.normal(0, 1 / np.sqrt(N_FEATURES), (hidden, N_FEATURES)), "b1": np.zeros(hidden),
                       "w2": rng.normal(0, 0.1, (len(DECISIONS), hidden)), "b2": np.zeros(len(DECISIONS))}
        self.rng, self.greedy, self.record = rng, False, None

    def probs(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.tanh(self.params["w1"] @ x + self.params["b1"])
        logits = self.params["w2"] @ h + self.params["b2"]
        logits = np.where(mask, logits, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum(), h

    def __call__(self, x: np.ndarray, mask: np.ndarray) -> int:
        p, h = self.probs(x, mask)
        a = int(np.argmax(p)) if self.greedy else int(self.rng.choice(len(p), p=p))
        if self.record is not None:
            self.record.append((x, h, p, a))
        return a

    def grads(self, record, advantage: float, entropy: float) -> dict:
        """Gradient of -(advantage * sum log pi(a|x) + entropy * sum H(pi(.|x))) over one episode's decisions."""
        g = {k: np.zeros_like(v) for k, v in self.params.items()}
        for x, h, p, a in record:
            dlogits = p.copy()
            dlogits[a] -= 1.0
            dlogits *= advantage
            logp = np.log(np.where(p > 0, p, 1.0))
            ent = -(p * logp).sum()
            dlogits += entropy * p * (logp + ent)  # d(-H)/dlogits on the valid actions
            g["w2"] += np.outer(dlogits, h)
            g["b2"] += dlogits
            dh = (self.params["w2"].T @ dlogits) * (1 - h**2)
            g["w1"] += np.outer(dh, x)
            g["b1"] += dh
        return g


class Adam:
    def __init__(self, params: dict, lr: float):
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict, grads: dict) -> None:
        self.t += 1
        for k in params:
            self.m[k] = 0.9 * self.m[k] + 0.1 * grads[k]
            self.v[k] = 0.999 * self.v[k] + 0.001 * grads[k] ** 2
            mh, vh = self.m[k] / (1 - 0.9**self.t), self.v[k] / (1 - 0.999**self.t)
            params[k] -= self.lr * mh / (np.sqrt(vh) + 1e-8)


def plateaued(pass_rewards: list[float], window: int, min_delta: float) -> bool:
    """The convergence rule: the mean training reward of the last `window` passes exceeds that of the `window` passes
    before them by less than `min_delta` (windows of passes, not updates, so every question counts once per window)."""
    if len(pass_rewards) < 2 * window:
        return False
    return np.mean(pass_rewards[-window:]) - np.mean(pass_rewards[-2 * window:-window]) < min_delta


def frozen_copy(policy: MLPPolicy) -> MLPPolicy:
    """A greedy copy of `policy` with its parameters as they are now (the untrained policy for the positive control)."""
    copy = MLPPolicy.__new__(MLPPolicy)
    copy.params = {k: v.copy() for k, v in policy.params.items()}
    copy.rng, copy.greedy, copy.record = None, True, None
    return copy


def train(make_env, passes, rng: np.random.Generator, cfg) -> tuple[MLPPolicy, list[dict], MLPPolicy]:
    """REINFORCE over `passes` (an iterable of episode lists [(doc_key, question), ...], one pass over the training
    questions each), `cfg.batch` episodes per update, until `plateaued` or the passes run out (the cap).
    make_env(doc_key) -> a harness env. Returns the trained policy, the learning curve (one row per update) and the
    same policy at its random initialisation (greedy), the positive control's reference."""
    policy = MLPPolicy(rng, cfg.hidden)
    initial = frozen_copy(policy)
    opt, baseline, curve, pass_rewards, seen = Adam(policy.params, cfg.lr), None, [], [], 0
    for n, episodes in enumerate(passes):
        pass_total = 0.0
        for start in range(0, len(episodes), cfg.batch):
            grads = {k: np.zeros_like(v) for k, v in policy.params.items()}
            rewards, scores = [], []
            batch = episodes[start:start + cfg.batch]
            for key, q in batch:
                policy.record = []
                r = run_episode(make_env(key), HarnessAgent(policy), q)
                reward = r["score"] - cfg.step_cost * r["steps"]
                baseline = reward if baseline is None else baseline
                for k, v in policy.grads(policy.record, reward - baseline, cfg.entropy).items():
                    grads[k] += v / len(batch)
                rewards.append(reward)
                scores.append(r["score"])
            baseline = 0.9 * baseline + 0.1 * float(np.mean(rewards))
            opt.step(policy.params, grads)
            seen, pass_total = seen + len(batch), pass_total + float(np.sum(rewards))
            curve.append({"update": len(curve), "pass": n, "episodes": seen, "reward": float(np.mean(rewards)),
                          "score": float(np.mean(scores))})
        pass_rewards.append(pass_total / len(episodes))
        if plateaued(pass_rewards, cfg.window, cfg.min_delta):
            break
    converged = plateaued(pass_rewards, cfg.window, cfg.min_delta)
    for row in curve:
        row["converged"] = converged
    policy.record, policy.greedy = None, True
    return policy, curve, initial

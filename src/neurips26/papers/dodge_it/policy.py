"""The learned policy (an MLP on the perceived observation of `observation.py`: a stand-in for a VLA's action head),
behaviour cloning from the obstacle-blind expert, and GRPO (group size G, group-normalised episode advantages,
PPO-clipped updates, and GRPO's KL penalty to a reference policy: the BC policy, an anchor against drifting away from
the skill RL starts from)."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from neurips26.common.models import optim
from neurips26.papers.dodge_it.observation import OBS_DIM


class Policy(nn.Module):
    """Gaussian policy: mean = tanh(MLP(obs)) in action units; a fixed exploration std (as sampling temperature)."""

    def __init__(self, obs_dim: int = OBS_DIM, hidden: int = 64, std: float = 0.3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 2))
        self.std = float(std)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.net(obs))

    def log_prob(self, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        dist = torch.distributions.Normal(self(obs), self.std)
        return dist.log_prob(actions).sum(-1)

    @torch.no_grad()
    def act(self, obs: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
        """Mean action (rng None: evaluation) or a sample (training rollouts)."""
        mean = self(torch.as_tensor(obs, dtype=torch.float32)).numpy().astype(float)
        return mean if rng is None else mean + self.std * rng.standard_normal(mean.shape)


def behaviour_cloning(policy: Policy, obs: np.ndarray, actions: np.ndarray, epochs: int, lr: float,
                      batch: int, seed: int) -> list[float]:
    """MSE regression of the mean action on the expert's actions; returns the per-epoch training loss."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.as_tensor(obs, dtype=torch.float32)
    y = torch.as_tensor(actions, dtype=torch.float32)
    opt = optim.Adam(policy.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), batch):
            idx = order[i:i + batch]
            loss = ((policy(x[idx]) - y[idx]) ** 2).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        losses.append(total / len(x))
    return losses


def group_advantages(rewards: np.ndarray) -> np.ndarray:
    """GRPO: (r - mean_group) / (std_group + 1e-6) per group (rows = groups); an all-equal group gives zeros."""
    r = np.asarray(rewards, float)
    return (r - r.mean(axis=1, keepdims=True)) / (r.std(axis=1, keepdims=True) + 1e-6)


def kl_to_reference(policy: Policy, reference: Policy, obs: torch.Tensor) -> torch.Tensor:
    """Mean per-step KL(pi || pi_ref) of two Gaussians with the same fixed std: |mu - mu_ref|^2 / (2 std^2)."""
    with torch.no_grad():
        ref = reference(obs)
    return ((policy(obs) - ref) ** 2).sum(-1).mean() / (2 * policy.std**2)


def grpo_update(policy: Policy, opt, obs: list, actions: list, advantages: np.ndarray, epochs: int,
                clip: float, reference: Policy | None = None, kl_coef: float = 0.0) -> float:
    """PPO-clipped surrogate with each episode's advantage on all of its steps (token-level mean, as in GRPO), plus
    kl_coef * KL to the reference policy when one is given."""
    lengths = [len(o) for o in obs]
    x = torch.as_tensor(np.concatenate(obs), dtype=torch.float32)
    a = torch.as_tensor(np.concatenate(actions), dtype=torch.float32)
    adv = torch.as_tensor(np.repeat(advantages.ravel(), lengths), dtype=torch.float32)
    with torch.no_grad():
        old = policy.log_prob(x, a)
    loss_value = 0.0
    for _ in range(epochs):
        ratio = torch.exp(policy.log_prob(x, a) - old)
        loss = -torch.min(ratio * adv, torch.clamp(ratio, 1 - clip, 1 + clip) * adv).mean()
        if reference is not None and kl_coef > 0:
            loss = loss + kl_coef * kl_to_reference(policy, reference, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_value = loss.item()
    return loss_value

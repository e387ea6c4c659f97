"""The CBF-QP filter against a brute-force QP, GRPO's advantages and update, rewards, and the environment's layouts."""

import numpy as np
import pytest
import torch

from neurips26.common.config import compose
from neurips26.papers.dodge_it import baselines, experiments
from neurips26.papers.dodge_it.env import TabletopEnv, load_model, sample_layout, sample_layouts, stream
from neurips26.papers.dodge_it.policy import Policy, group_advantages, grpo_update


def _brute_force_qp(u_nom, p, o, r, alpha):
    """min |u - u_nom| over a fine polar grid of feasible u (n.u >= -alpha h)."""
    n = (p - o) / np.linalg.norm(p - o)
    b = -alpha * (np.linalg.norm(p - o) - r)
    radii, angles = np.linspace(0, 0.06, 601), np.linspace(0, 2 * np.pi, 1441)
    cand = (radii[:, None, None] * np.stack([np.cos(angles), np.sin(angles)], -1)[None]).reshape(-1, 2)
    cand = cand[cand @ n >= b - 1e-12]
    return cand[np.argmin(np.linalg.norm(cand - u_nom, axis=1))]


def test_cbf_filter_enforces_the_constraint_and_is_the_qp_minimiser():
    rng = np.random.default_rng(3)
    alpha, limit = 0.3, 1.0  # a large step limit: the QP alone decides
    for _ in range(25):
        o = rng.uniform(-0.1, 0.1, 2)
        p = o + rng.uniform(0.05, 0.12) * (lambda a: np.array([np.cos(a), np.sin(a)]))(rng.uniform(0, 2 * np.pi))
        r = 0.05
        u_nom = (o - p) * rng.uniform(0.2, 1.0) + rng.normal(0, 0.005, 2)
        u = baselines.cbf_filter(u_nom, p, [(o, r)], alpha, limit)
        n = (p - o) / np.linalg.norm(p - o)
        assert n @ u >= -alpha * (np.linalg.norm(p - o) - r) - 1e-9
        # the minimiser: no feasible grid point is closer to u_nom, and the grid's best is within its spacing
        best = np.linalg.norm(_brute_force_qp(u_nom, p, o, r, alpha) - u_nom)
        assert best - 2e-4 <= np.linalg.norm(u - u_nom) <= best + 1e-9


def test_cbf_filter_leaves_safe_actions_alone_and_scaling_keeps_the_constraint():
    p, o = np.array([0.0, 0.0]), np.array([0.2, 0.0])
    away = np.array([-0.02, 0.01])
    assert np.allclose(baselines.cbf_filter(away, p, [(o, 0.05)], 0.3, 0.025), away)
    u = baselines.cbf_filter(np.array([0.3, 0.0]), p, [(o, 0.05)], 0.3, 0.025)  # clipped to the step limit
    assert np.linalg.norm(u) <= 0.025 + 1e-12 and -u[0] >= -0.3 * 0.15 - 1e-12


def test_group_advantages_are_normalised_per_group():
    adv = group_advantages(np.array([[1, 0, 1, 0], [1, 1, 1, 1], [0.5, -0.5, 1, 0]]))
    assert np.allclose(adv.mean(axis=1), 0) and np.allclose(adv[1], 0)
    assert np.allclose(adv[[0, 2]].std(axis=1), 1, atol=1e-4)


def test_grpo_update_raises_the_likelihood_of_advantaged_actions():
    torch.manual_seed(0)
    policy = Policy(std=0.3)
    obs = [np.zeros((5, 7), np.float32), np.zeros((5, 7), np.float32)]
    acts = [np.full((5, 2), 0.5, np.float32), np.full((5, 2), -0.5, np.float32)]
    x = torch.zeros(1, 7)
    before = policy(x)[0, 0].item()
    grpo_update(policy, torch.optim.Adam(policy.parameters(), lr=0.01), obs, acts, np.array([1.0, -1.0]), 4, 0.2)
    assert policy(x)[0, 0].item() > before


def test_rewards():
    recs = [{"success": 1, "trace_collision": True}, {"success": 1, "trace_collision": False},
            {"success": 0, "trace_collision": True}]
    assert experiments.reward(recs, "success", 0.5).tolist() == [1, 1, 0]
    assert experiments.reward(recs, "dodge", 0.5).tolist() == [0.5, 1, -0.5]
    with pytest.raises(ValueError):
        experiments.reward(recs, "other", 0.5)


def test_layouts_are_seeded_and_level_two_blocks_the_path():
    a, b = sample_layouts(5, "eval", 6), sample_layouts(5, "eval", 6)
    assert all(np.array_equal(x.obstacle, y.obstacle) for x, y in zip(a, b))
    assert not np.array_equal(sample_layouts(5, "rl", 1)[0].target, a[0].target)
    rng = stream(0, "test")
    for _ in range(50):
        lay = sample_layout(rng, 2)
        path = lay.goal - lay.target
        t = np.dot(lay.obstacle - lay.target, path) / np.dot(path, path)
        lateral = np.linalg.norm(lay.obstacle - lay.target - t * path)
        assert 0.4 - 1e-9 <= t <= 0.6 + 1e-9 and lateral <= 0.02 + 1e-9
        lay1 = sample_layout(rng, 1)
        assert 0.055 - 1e-9 <= np.linalg.norm(lay1.obstacle - lay1.target) <= 0.08 + 1e-9


def test_env_is_deterministic_and_the_blind_expert_succeeds_on_a_free_path():
    cfg = compose("dodge_it", ["scale=tiny"])
    model = load_model()
    lay = sample_layouts(2, "test", 2)[1]
    free = type(lay)(lay.level, lay.gripper, lay.target, lay.goal, np.array([0.28, 0.28]), np.array([-0.28, -0.28]))
    paths = []
    for _ in range(2):
        env = TabletopEnv(model, cfg.env)
        obs = env.reset(free)
        while not env.done:
            obs = env.step(baselines.expert(obs[:2] * 0.1, cfg.env.max_step) / cfg.env.max_step)[0]
        paths.append(np.array(env.episode.gripper_path))
        assert env.episode.success and not env.episode.contact and env.episode.max_displacement < 1e-4
    assert np.array_equal(paths[0], paths[1])

"""The CBF-QP filter against a brute-force QP, GRPO's advantages and update, rewards, and the environment's layouts."""

import numpy as np
import pytest
import torch

from neurips26.common.pipeline.config import compose
from neurips26.papers.dodge_it import baselines, experiments
from neurips26.papers.dodge_it.env import TabletopEnv, load_model, sample_layout, sample_layouts, stream
from neurips26.papers.dodge_it.observation import OBS_DIM
from neurips26.papers.dodge_it.policy import Policy, group_advantages, grpo_update, kl_to_reference
from neurips26.papers.dodge_it.trace import relevant


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
    obs = [np.zeros((5, OBS_DIM), np.float32), np.zeros((5, OBS_DIM), np.float32)]
    acts = [np.full((5, 2), 0.5, np.float32), np.full((5, 2), -0.5, np.float32)]
    x = torch.zeros(1, OBS_DIM)
    before = policy(x)[0, 0].item()
    grpo_update(policy, torch.optim.Adam(policy.parameters(), lr=0.01), obs, acts, np.array([1.0, -1.0]), 4, 0.2)
    assert policy(x)[0, 0].item() > before


def test_the_kl_anchor_holds_the_policy_near_its_reference():
    """The same advantaged update with and without the KL to the (BC) reference: the anchor keeps the mean action
    closer to the reference's, and the KL of a Gaussian pair with a shared std is |mu - mu_ref|^2 / (2 std^2)."""
    obs = [np.random.default_rng(1).normal(size=(20, OBS_DIM)).astype(np.float32) for _ in range(2)]
    acts = [np.full((20, 2), 0.9, np.float32), np.full((20, 2), -0.9, np.float32)]
    x = torch.as_tensor(np.concatenate(obs))
    moved = {}
    for coef in (0.0, 10.0):
        torch.manual_seed(0)
        policy, reference = Policy(std=0.3), Policy(std=0.3)
        reference.load_state_dict(policy.state_dict())
        opt = torch.optim.Adam(policy.parameters(), lr=0.01)
        for _ in range(5):
            grpo_update(policy, opt, obs, acts, np.array([1.0, -1.0]), 4, 0.2, reference, coef)
        moved[coef] = kl_to_reference(policy, reference, x).item()
        expected = ((policy(x) - reference(x)) ** 2).sum(-1).mean().item() / (2 * 0.3**2)
        assert moved[coef] == pytest.approx(expected, rel=1e-5)
    assert moved[10.0] < 0.5 * moved[0.0]


def test_rewards():
    recs = [{"success": 1, "trace_collision": True, "contact": 0}, {"success": 1, "trace_collision": False, "contact": 1},
            {"success": 0, "trace_collision": True, "contact": 1}]
    assert experiments.reward(recs, "success", 0.5).tolist() == [1, 1, 0]
    assert experiments.reward(recs, "dodge", 0.5).tolist() == [0.5, 1, -0.5]
    assert experiments.reward(recs, "contact", 0.5).tolist() == [1, 0.5, -0.5]
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


def test_the_distractor_is_near_the_path_but_not_task_relevant():
    """Issue #62 item 7: every layout's distractor lies 8-11 cm from the gripper -> target -> goal path, outside the
    6 cm corridor and the 12 cm target radius, while the obstacle is relevant by the same rule."""
    cfg = compose("dodge_it", ["scale=tiny"]).trace
    rng = stream(1, "test")
    for level in (1, 2) * 40:
        lay = sample_layout(rng, level)
        path = min(experiments_segment(lay.distractor, lay.gripper, lay.target),
                   experiments_segment(lay.distractor, lay.target, lay.goal))
        assert 0.08 - 1e-9 <= path <= 0.11 + 1e-9
        assert not relevant(lay.distractor, lay.target, lay.gripper, lay.goal, cfg.near_radius, cfg.corridor)
        assert relevant(lay.obstacle, lay.target, lay.gripper, lay.goal, cfg.near_radius, cfg.corridor)


def experiments_segment(p, a, b):
    """Distance of p from segment ab (written again here, not taken from env.py)."""
    ts = np.linspace(0, 1, 2001)[:, None]
    return float(np.min(np.linalg.norm(a + ts * (b - a) - p, axis=1)))


def test_the_observation_carries_no_privileged_obstacle_coordinates():
    """Issue #62 item 1: two scenes that differ only in where the simulator puts the obstacle and the distractor give the
    same policy observation when perception reports the same objects; moving the obstacle in the simulator after reset
    changes nothing; only the perceived objects reach the observation."""
    cfg = compose("dodge_it", ["scale=tiny"])
    model = load_model()
    lay = sample_layouts(4, "test", 2)[1]
    moved = type(lay)(lay.level, lay.gripper, lay.target, lay.goal, lay.obstacle + [0.03, -0.02], lay.distractor - 0.05)
    perceived = [(np.array([0.05, 0.01]), 0.025), (np.array([-0.1, 0.2]), 0.03)]
    obs = []
    for layout in (lay, moved):
        env = TabletopEnv(model, cfg.env)
        env.reset(layout)
        obs.append(env.perceive(perceived))
    assert obs[0].shape == (OBS_DIM,) and np.array_equal(obs[0], obs[1])
    env.data.qpos[env.qadr["obstacle"]:env.qadr["obstacle"] + 2] += 0.05  # the simulator's obstacle moves ...
    assert np.array_equal(env.observation(), obs[1])                        # ... and the policy cannot tell
    # the simulator's obstacle and distractor coordinates (relative to the gripper, in the obs units) appear nowhere
    for obj in (moved.obstacle, moved.distractor):
        rel = (obj - env.gripper) / 0.1
        assert not any(np.allclose(obs[1][i:i + 2], rel, atol=1e-3) for i in range(OBS_DIM - 1))
    # but what perception reports does reach it (so the test above can fail)
    assert not np.array_equal(env.perceive(perceived[:1]), obs[1])


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

"""The experiments: behaviour cloning, RL (success-only or DODGE-IT reward) and the held-out evaluation of every method."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from neurips26.common.models import optim
from neurips26.papers.dodge_it import rollout
from neurips26.papers.dodge_it.env import Camera, load_model, sample_layouts, stream
from neurips26.papers.dodge_it.policy import Policy, behaviour_cloning, group_advantages, grpo_update

METHODS = ("expert", "avoider", "bc", "success_rl", "dodge_rl", "contact_rl", "bc_cbf", "potential_field")
# RL reward kinds -> the evaluated method: success-only (SimpleVLA-RL), DODGE-IT (TRACE's outcome as the penalty) and the
# positive control (the simulator's contact signal as the penalty: what DODGE-IT's reward approximates from RGB-D)
RL_KINDS = {"success": "success_rl", "dodge": "dodge_rl", "contact": "contact_rl"}


def _policy(cfg) -> Policy:
    return Policy(hidden=int(cfg.policy.hidden), std=float(cfg.policy.std))


class _Scene:
    """The MuJoCo model and the offscreen camera of one process (closed explicitly: EGL teardown at exit is noisy)."""

    def __enter__(self):
        self.model = load_model()
        self.camera = None
        return self

    def cam(self, cfg) -> Camera:
        if self.camera is None:
            self.camera = Camera(self.model, int(cfg.env.image_size))
        return self.camera

    def __exit__(self, *exc):
        if self.camera is not None:
            self.camera.close()


def train_bc(cfg, seed: int) -> tuple[dict, pd.DataFrame]:
    """Clone the obstacle-blind expert from rollouts with injected action noise (DART), labels = clean expert actions."""
    torch.manual_seed(seed)
    rng = stream(seed, "bc", 1)
    expert = rollout.expert_controller(cfg)
    noise = float(cfg.bc.noise)

    def noisy(envs, obs):
        return expert(envs, obs) + noise * rng.standard_normal((len(obs), 2))

    with _Scene() as scene:  # the policy's input includes TRACE's perceived objects of the first frame
        res = rollout.run(scene.model, scene.cam(cfg), sample_layouts(seed, "bc", int(cfg.bc.episodes)), noisy, cfg,
                          trace_outcome=False)
    obs = np.concatenate(res.observations)
    labels = expert(None, obs)
    policy = _policy(cfg)
    losses = behaviour_cloning(policy, obs, labels, int(cfg.bc.epochs), float(cfg.bc.lr), int(cfg.bc.batch), seed)
    log = pd.DataFrame({"epoch": np.arange(1, len(losses) + 1), "loss": losses, "samples": len(obs)})
    return policy.state_dict(), log


def reward(records: list[dict], kind: str, lam: float) -> np.ndarray:
    """success-only: 1[success]. dodge: 1[success] - lambda * c, c = TRACE's collision outcome (never the simulator's).
    contact (the positive control): the same with c = the simulator's contact of the gripper or held target with the
    obstacle."""
    success = np.array([r["success"] for r in records], float)
    if kind == "success":
        return success
    if kind in ("dodge", "contact"):
        key = "trace_collision" if kind == "dodge" else "contact"
        return success - lam * np.array([r[key] for r in records], float)
    raise ValueError(f"unknown reward {kind!r}: expected one of {sorted(RL_KINDS)}")


def train_rl(cfg, seed: int, bc_state: dict, kind: str) -> tuple[dict, pd.DataFrame]:
    """GRPO from the BC policy: each iteration `groups` fresh training layouts x `group_size` sampled rollouts; the
    KL anchor to the BC policy (`rl.kl_coef`, tuned for success-only RL on pilot seeds) is the same for every reward."""
    if kind not in RL_KINDS:
        raise ValueError(f"unknown reward {kind!r}: expected one of {sorted(RL_KINDS)}")
    torch.manual_seed(seed)
    policy, reference = _policy(cfg), _policy(cfg)
    policy.load_state_dict(bc_state)
    reference.load_state_dict(bc_state)
    rl = cfg.rl
    opt = optim.Adam(policy.parameters(), lr=float(rl.lr))
    rng = stream(seed, "rl", list(RL_KINDS).index(kind))
    rows = []
    with _Scene() as scene:
        camera = scene.cam(cfg)
        for it in tqdm(range(int(rl.iterations)), desc=f"grpo {kind}", file=sys.stderr):
            layouts = sample_layouts(seed * 1000 + it, "rl", int(rl.groups))
            batch = [lay for lay in layouts for _ in range(int(rl.group_size))]
            res = rollout.run(scene.model, camera, batch, rollout.policy_controller(policy, rng), cfg,
                              trace_outcome=kind == "dodge")
            r = reward(res.records, kind, float(rl.collision_penalty))
            adv = group_advantages(r.reshape(int(rl.groups), int(rl.group_size)))
            loss = grpo_update(policy, opt, res.observations, res.actions, adv, int(rl.epochs), float(rl.clip),
                               reference, float(rl.kl_coef))
            recs = pd.DataFrame(res.records)
            rows.append({"iteration": it + 1, "episodes": (it + 1) * len(batch), "reward": r.mean(),
                         "success": recs["success"].mean(), "collision_ref": recs["collision_ref"].mean(),
                         "trace_collision": recs["trace_collision"].mean() if kind == "dodge" else np.nan,
                         "loss": loss})
    return policy.state_dict(), pd.DataFrame(rows)


def evaluate(cfg, seed: int, states: dict[str, dict]) -> tuple[pd.DataFrame, dict]:
    """Every method on the same held-out layouts (deterministic actions); TRACE on every episode; the RGB frames of the
    first level-II episode of each method for the figure."""
    layouts = sample_layouts(seed, "eval", 2 * int(cfg.eval.layouts_per_level))
    policies = {}
    for name, state in states.items():
        policies[name] = _policy(cfg)
        policies[name].load_state_dict(state)
    controllers = {
        "expert": rollout.expert_controller(cfg), "avoider": rollout.avoider_controller(cfg),
        "bc": rollout.policy_controller(policies["bc"]),
        **{m: rollout.policy_controller(policies[m]) for m in RL_KINDS.values()},
        "bc_cbf": rollout.cbf_controller(policies["bc"], cfg), "potential_field": rollout.potential_field_controller(cfg)}
    frames, rows = {}, []
    with _Scene() as scene:
        camera = scene.cam(cfg)
        for method in tqdm(METHODS, desc="evaluate", file=sys.stderr):
            res = rollout.run(scene.model, camera, layouts, controllers[method], cfg, record_frames=(1,))
            frames[method] = res.frames[1]
            for i, rec in enumerate(res.records):
                rows.append({"seed": seed, "method": method, "layout": i, **rec})
    return pd.DataFrame(rows), frames

"""Batched rollouts: many scenes step side by side (one policy call per step for all of them); TRACE renders the first
frame once per layout (a GRPO group shares it) and the last frame of every episode."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from neurips26.papers.dodge_it import baselines, trace
from neurips26.papers.dodge_it.env import Camera, Layout, TabletopEnv
from neurips26.papers.dodge_it.observation import perceived_objects

# controller(envs, obs (n, OBS_DIM)) -> actions (n, 2) in env units [-1, 1] (samples may exceed it: the env clips)
Controller = Callable[[list, np.ndarray], np.ndarray]


@dataclass
class Result:
    records: list = field(default_factory=list)       # one dict per episode (metrics + TRACE outcome)
    observations: list = field(default_factory=list)  # per episode (T, OBS_DIM): for RL updates
    actions: list = field(default_factory=list)       # per episode (T, 2)
    frames: dict = field(default_factory=dict)        # episode index -> (T+1, H, W, 3) RGB, for the figure


def perceived_obstacles(env, cfg) -> list[tuple[np.ndarray, float]]:
    """(centre xy, safety radius) of every perceived object cluster (a safety filter does not know task relevance):
    bounding-box centre and half-extent of its points, plus the gripper's (or the held target's) radius and a margin."""
    pad = (cfg.trace.carry_radius if env.grasped else cfg.trace.gripper_radius) + cfg.baselines.margin
    return [(centre, half + pad) for centre, half in env.perceived]


def run(model, camera: Camera, layouts: list[Layout], controller: Controller, cfg, *, trace_outcome: bool = True,
        perceive: bool = True, record_frames: tuple = ()) -> Result:
    envs = [TabletopEnv(model, cfg.env) for _ in layouts]
    obs = np.stack([env.reset(layout) for env, layout in zip(envs, layouts)])
    result = Result()
    first_frames = {}
    if perceive:
        intr = camera.intrinsics(model, envs[0].data)
        for i, (env, layout) in enumerate(zip(envs, layouts)):
            key = id(layout)
            if key not in first_frames:
                rgb, depth = camera.rgbd(env.data)
                rng = np.random.default_rng(0)  # RANSAC draws: fixed, so perception is a pure function of the frame
                first_frames[key] = trace.perceive(rgb, depth, intr, layout.gripper, layout.goal, cfg.trace, rng)
            env.scene, env.plane = first_frames[key]
            obs[i] = env.perceive(perceived_objects(env.scene))
    frames = {i: [camera.rgbd(envs[i].data)[0]] for i in record_frames}
    traj_obs = [[] for _ in envs]
    traj_act = [[] for _ in envs]
    active = list(range(len(envs)))
    while active:
        actions = controller([envs[i] for i in active], obs[active])
        for i, a in zip(active, actions):
            traj_obs[i].append(obs[i].copy())
            traj_act[i].append(np.asarray(a, float))
            obs[i] = envs[i].step(a)[0]
            if i in frames:
                frames[i].append(camera.rgbd(envs[i].data)[0])
        active = [i for i in active if not envs[i].done]
    for i, env in enumerate(envs):
        ep = env.episode
        rec = {"level": env.layout.level, "success": int(ep.success), "steps": ep.steps, "contact": int(ep.contact),
               "displacement": ep.max_displacement,
               "collision_ref": int(ep.max_displacement > cfg.eval.displacement_threshold),
               "distractor_contact": int(ep.distractor_contact)}
        if trace_outcome:
            rgb, depth = camera.rgbd(env.data)
            rec.update(trace.outcome(env.scene, rgb, depth, camera.intrinsics(model, env.data), env.plane,
                                     ep.gripper_path, ep.grasped_path, cfg.trace))
            rel_ok = [r == (np.linalg.norm(o.centroid[:2] - env.layout.obstacle) < 0.05)
                      for o, r in zip(env.scene.objects, env.scene.relevant)]
            rec["relevance_correct"] = int(all(rel_ok) and len(rel_ok) == 2)
        result.records.append(rec)
        result.observations.append(np.asarray(traj_obs[i], np.float32))
        result.actions.append(np.asarray(traj_act[i], np.float32))
    result.frames = {i: np.stack(f) for i, f in frames.items()}
    return result


# -- controllers ---------------------------------------------------------------------------------------------------

def expert_controller(cfg) -> Controller:
    step = cfg.env.max_step
    return lambda envs, obs: np.stack([baselines.expert(o[:2] * 0.1, step) / step for o in obs])


def avoider_controller(cfg) -> Controller:
    """Scripted detour around the simulator's obstacle position (privileged: a positive control, not a method)."""
    step = cfg.env.max_step

    def act(envs, obs):
        out = []
        for env, o in zip(envs, obs):
            safe = OBSTACLE_SAFE + (cfg.trace.carry_radius if env.grasped else cfg.trace.gripper_radius)
            sub = env.gripper + o[:2] * 0.1
            out.append(baselines.avoider(env.gripper, sub, env.pos("obstacle")[:2], safe, step) / step)
        return np.stack(out)

    return act


OBSTACLE_SAFE = 0.025 + 0.012  # the obstacle's radius plus a margin


def policy_controller(policy, rng=None) -> Controller:
    return lambda envs, obs: policy.act(obs, rng)


def cbf_controller(policy, cfg) -> Controller:
    step = cfg.env.max_step

    def act(envs, obs):
        nominal = np.clip(policy.act(obs, None), -1, 1) * step
        return np.stack([baselines.cbf_filter(u, env.gripper, perceived_obstacles(env, cfg), cfg.baselines.cbf_alpha,
                                              step) / step for env, u in zip(envs, nominal)])

    return act


def potential_field_controller(cfg) -> Controller:
    step, b = cfg.env.max_step, cfg.baselines

    def act(envs, obs):
        return np.stack([baselines.potential_field(env.gripper, env.gripper + o[:2] * 0.1, perceived_obstacles(env, cfg),
                                                   b.pf_attract, b.pf_repulse, b.pf_influence, step) / step
                         for env, o in zip(envs, obs)])

    return act

"""Controllers that are not learned: the obstacle-blind scripted expert (BC's teacher), a scripted avoider (a positive
control: it detours by construction), the CBF-QP safety filter (AEGIS-style) and a potential-field planner.

All work on planar displacements in metres per control step; `to_action` scales them to the env's [-1, 1] actions.
Obstacles for the filter and the planner come from TRACE's perception of the first frame (centre, radius).
"""

from __future__ import annotations

import numpy as np


def clip_norm(u: np.ndarray, limit: float) -> np.ndarray:
    n = np.linalg.norm(u)
    return u if n <= limit else u * (limit / n)


def expert(subgoal_rel: np.ndarray, max_step: float) -> np.ndarray:
    """Obstacle-blind: straight at the subgoal (target, then goal), at most max_step per step."""
    return clip_norm(np.asarray(subgoal_rel, float), max_step)


def avoider(gripper, subgoal, obstacle, safe: float, max_step: float) -> np.ndarray:
    """Straight at the subgoal unless the straight segment passes within `safe` of the obstacle; then at a via-point
    `safe + 1 cm` beside the obstacle on the side the segment already passes (a scripted detour)."""
    g, s, o = (np.asarray(x, float) for x in (gripper, subgoal, obstacle))
    path = s - g
    length = np.linalg.norm(path)
    if length < 1e-9:
        return np.zeros(2)
    t = np.dot(o - g, path) / length**2
    closest = g + np.clip(t, 0, 1) * path
    if 0 < t < 1 and np.linalg.norm(closest - o) < safe and np.linalg.norm(s - o) > safe:
        side = closest - o
        if np.linalg.norm(side) < 1e-6:
            side = np.array([-path[1], path[0]])
        via = o + side / np.linalg.norm(side) * (safe + 0.01)
        return clip_norm(via - g, max_step)
    return clip_norm(path, max_step)


def cbf_filter(u_nom: np.ndarray, gripper, obstacles, alpha: float, max_step: float) -> np.ndarray:
    """The CBF-QP: min |u - u_nom|^2 s.t. n_i . u >= -alpha h_i for each obstacle i, h_i = |p - o_i| - r_i (the
    discrete-time hdot >= -alpha h). One active constraint has the closed form u_nom + max(0, b - n.u_nom) n; several
    are solved by cyclic projection (Dykstra-free, which is exact when at most one is active at a time, the case here).
    Scaling into the step limit keeps feasibility while h >= 0."""
    u = np.asarray(u_nom, float).copy()
    p = np.asarray(gripper, float)
    for _ in range(10):
        changed = False
        for centre, radius in obstacles:
            diff = p - np.asarray(centre, float)
            dist = np.linalg.norm(diff)
            n = diff / max(dist, 1e-9)
            b = -alpha * (dist - radius)
            if n @ u < b - 1e-12:
                u = u + (b - n @ u) * n
                changed = True
        if not changed:
            break
    return clip_norm(u, max_step)


def potential_field(gripper, subgoal, obstacles, k_att: float, k_rep: float, influence: float,
                    max_step: float) -> np.ndarray:
    """Attractive pull to the subgoal plus the classic repulsion k (1/d - 1/d0) / d^2 within d0 of each obstacle
    surface (d measured from the obstacle's safety radius)."""
    p, s = np.asarray(gripper, float), np.asarray(subgoal, float)
    force = k_att * (s - p)
    for centre, radius in obstacles:
        diff = p - np.asarray(centre, float)
        dist = np.linalg.norm(diff)
        d = max(dist - radius, 1e-3)
        if d < influence:
            force = force + k_rep * (1 / d - 1 / influence) / d**2 * diff / max(dist, 1e-9)
    return clip_norm(force, max_step)

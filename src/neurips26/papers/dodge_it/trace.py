"""TRACE (Task-Relevant Assessment of Collision Events) from RGB-D alone, plus the robot's own proprioception.

depth -> world point cloud (pinhole back-projection) -> table plane removed (RANSAC) -> pixels grouped into objects
(colour tells the instructed target (red) and the robot's own gripper (grey) apart; every other connected group of
off-plane pixels is a candidate obstacle) -> task relevance (centroid within `near_radius` of the target, or inside a
corridor of half-width `corridor` around gripper -> target -> goal) -> collision outcome of the execution: a relevant
obstacle's centroid moved by more than `tau` between the first and the last frame, or the gripper (proprioception; with
the held target's footprint once grasped) came closer than `eps` to the obstacle's first-frame points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage


def backproject(depth: np.ndarray, f: float, cam_pos: np.ndarray, cam_rot: np.ndarray) -> np.ndarray:
    """World points (H, W, 3) of a z-depth image: MuJoCo cameras look along -z with y up; image row 0 is the top."""
    h, w = depth.shape
    u = np.arange(w) + 0.5 - w / 2
    v = np.arange(h) + 0.5 - h / 2
    x_c = u[None, :] * depth / f
    y_c = -v[:, None] * depth / f
    cam = np.stack([x_c, y_c, -depth], axis=-1)
    return cam @ cam_rot.T + cam_pos


def ransac_plane(points: np.ndarray, rng: np.random.Generator, iters: int = 60, thresh: float = 0.004):
    """The dominant plane n.p + d = 0 (|n| = 1, n_z >= 0): RANSAC on 3-point samples, then least squares on inliers."""
    tri = points[rng.integers(0, len(points), (iters, 3))]  # (iters, 3, 3); repeated points give degenerate samples
    score = points[rng.integers(0, len(points), min(len(points), 1024))]  # hypotheses scored on a subsample
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    ok = lengths > 1e-9
    normals = normals[ok] / lengths[ok, None]
    offsets = -(normals * tri[ok, 0]).sum(axis=1)
    counts = (np.abs(score @ normals.T + offsets) < thresh).sum(axis=0)
    best = int(np.argmax(counts))
    n, d = normals[best], offsets[best]
    inliers = points[np.abs(points @ n + d) < thresh]
    centre = inliers.mean(axis=0)
    n = np.linalg.svd(inliers - centre, full_matrices=False)[2][-1]
    n = n if n[2] >= 0 else -n
    return n, float(-n @ centre)


@dataclass
class Cluster:
    kind: str                # "target" | "gripper" | "object"
    points: np.ndarray       # (k, 3) world points
    pixels: int

    @property
    def centroid(self) -> np.ndarray:
        return self.points.mean(axis=0)


def colour_kind(rgb: np.ndarray) -> np.ndarray:
    """Per pixel: 0 object, 1 target (red, named by the instruction), 2 gripper (grey: the robot's own colour)."""
    c = rgb.astype(int)
    chroma = c.max(axis=-1) - c.min(axis=-1)
    red = (c[..., 0] >= 30) & (c[..., 0] > 1.8 * c[..., 1:].max(axis=-1))  # shaded faces of the red cube included
    return np.where(red, 1, np.where(chroma < 30, 2, 0))


def segment(rgb: np.ndarray, points: np.ndarray, plane, height: float = 0.006, min_pixels: int = 4,
            max_range: float = 1.5) -> list[Cluster]:
    """Off-plane pixels within max_range of the table centre (the background beyond the table is not a scene object),
    split by colour kind, each kind into 8-connected components of >= min_pixels pixels."""
    n, d = plane
    above = ((points @ n + d) > height) & (np.linalg.norm(points, axis=-1) < max_range)
    kinds = colour_kind(rgb)
    clusters = []
    for kind, name in enumerate(("object", "target", "gripper")):
        labels, count = ndimage.label(above & (kinds == kind), structure=np.ones((3, 3)))
        for i in range(1, count + 1):
            mask = labels == i
            if mask.sum() >= min_pixels:
                clusters.append(Cluster(name, points[mask], int(mask.sum())))
    return clusters


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-12), 0.0, 1.0)
    return float(np.linalg.norm(p - (a + t * ab)))


def relevant(centroid_xy, target_xy, gripper_xy, goal_xy, near_radius: float, corridor: float) -> bool:
    """Task relevance: near the target (level I) or inside the gripper -> target -> goal corridor (level II)."""
    near = np.linalg.norm(centroid_xy - target_xy) < near_radius
    in_corridor = min(_segment_distance(centroid_xy, gripper_xy, target_xy),
                      _segment_distance(centroid_xy, target_xy, goal_xy)) < corridor
    return bool(near or in_corridor)


@dataclass
class Scene:
    """The first frame, perceived: the target's and every candidate obstacle's points, and which are relevant."""

    target_xy: np.ndarray | None
    objects: list[Cluster]
    relevant: list[bool]


def perceive(rgb, depth, intrinsics, gripper_xy, goal_xy, cfg, rng) -> tuple[Scene, tuple]:
    points = backproject(depth, *intrinsics)
    plane = ransac_plane(points.reshape(-1, 3), rng, int(cfg.ransac_iters), float(cfg.plane_thresh))
    clusters = segment(rgb, points, plane)
    targets = [c for c in clusters if c.kind == "target"]
    target_xy = max(targets, key=lambda c: c.pixels).centroid[:2] if targets else None
    objects = [c for c in clusters if c.kind == "object"]
    rel = [target_xy is not None and relevant(c.centroid[:2], target_xy, np.asarray(gripper_xy), np.asarray(goal_xy),
                                              float(cfg.near_radius), float(cfg.corridor)) for c in objects]
    return Scene(target_xy, objects, rel), plane


def outcome(scene: Scene, rgb_last, depth_last, intrinsics, plane, gripper_path, grasped_path, cfg) -> dict:
    """The execution's collision outcome for the relevant obstacles (see the module docstring)."""
    last = [c for c in segment(rgb_last, backproject(depth_last, *intrinsics), plane) if c.kind == "object"]
    path = np.asarray(gripper_path, float)
    radius = np.where(np.asarray(grasped_path, bool), float(cfg.carry_radius), float(cfg.gripper_radius))
    displacement, clearance = 0.0, np.inf
    for obj, rel in zip(scene.objects, scene.relevant):
        if not rel:
            continue
        c0 = obj.centroid[:2]
        moved = min((np.linalg.norm(c.centroid[:2] - c0) for c in last), default=np.inf)
        displacement = max(displacement, float(moved))
        gaps = np.linalg.norm(path[:, None, :] - obj.points[None, :, :2], axis=-1).min(axis=1) - radius
        clearance = min(clearance, float(gaps.min()))
    collision = displacement > float(cfg.tau) or clearance < float(cfg.eps)
    return {"trace_collision": bool(collision), "trace_displacement": displacement, "trace_clearance": clearance,
            "trace_relevant": int(sum(scene.relevant)), "trace_objects": len(scene.objects)}

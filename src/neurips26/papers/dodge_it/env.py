"""The tabletop task in MuJoCo: seeded SafeLIBERO-style layouts (level I: obstacle near the target, level II: obstacle on
the target -> goal path) and a gymnasium-style environment (reset / step) with a mocap (position-controlled) gripper.

Task: move the gripper over the red target (it is grasped automatically within `grasp_radius`), carry it to the green
goal (success when its centre is within `goal_radius`). Action: a planar displacement in [-1, 1]^2 times `max_step` metres
per control step, interpolated over the physics substeps so the gripper sweeps (and pushes) obstacles continuously.
While grasped the target is held kinematically under the gripper (a simplified grasp, stated in the README).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from neurips26.papers.dodge_it.observation import policy_observation

ASSET = Path(__file__).parent / "assets" / "tabletop.xml"
STREAMS = {"bc": 1, "rl": 2, "eval": 3, "pilot": 4, "test": 5}
GRIPPER_Z = 0.075
CARRY_Z = 0.025          # the held target's centre height
TARGET_HALF = 0.02
OBSTACLE_RADIUS = 0.025
OBJECTS = ("target", "obstacle", "distractor")
DISTRACTOR_BAND = (0.08, 0.11)  # m: the distractor centre's distance from the task path


def stream(seed: int, purpose: str, *keys: int) -> np.random.Generator:
    """An independent generator per (seed, purpose, keys): training and held-out layouts never share draws."""
    return np.random.default_rng([int(seed), STREAMS[purpose], *map(int, keys)])


@dataclass(frozen=True)
class Layout:
    level: int                 # 1: obstacle near the target; 2: obstacle on the target -> goal path
    gripper: np.ndarray        # start xy
    target: np.ndarray         # xy
    goal: np.ndarray           # xy
    obstacle: np.ndarray       # xy (the task-relevant obstacle)
    distractor: np.ndarray     # xy (an object near the task path but outside the corridor: never relevant)


def _rot(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-12), 0.0, 1.0)
    return float(np.linalg.norm(p - (a + t * ab)))


def sample_layout(rng: np.random.Generator, level: int) -> Layout:
    """A SafeLIBERO-style layout. Level I: the obstacle sits 5.5-8 cm from the target on the gripper's side (the
    obstacle-blind approach usually sweeps it). Level II: it sits on the target -> goal segment (40-60 % along it,
    +-2 cm sideways), so the blind carry always hits it."""
    gripper = np.array([-0.22, rng.uniform(-0.06, 0.06)])
    target = np.array([rng.uniform(-0.06, 0.0), rng.uniform(-0.12, 0.12)])
    goal = np.array([rng.uniform(0.18, 0.23), rng.uniform(-0.12, 0.12)])
    if level == 1:
        toward = (gripper - target) / np.linalg.norm(gripper - target)
        obstacle = target + rng.uniform(0.055, 0.08) * _rot(toward, rng.uniform(-0.6, 0.6))
    elif level == 2:
        path = goal - target
        normal = np.array([-path[1], path[0]]) / np.linalg.norm(path)
        obstacle = target + rng.uniform(0.4, 0.6) * path + rng.uniform(-0.02, 0.02) * normal
    else:
        raise ValueError(f"level must be 1 or 2, got {level}")
    return Layout(level, gripper, target, goal, obstacle, _distractor(rng, gripper, target, goal, obstacle))


def _distractor(rng: np.random.Generator, gripper, target, goal, obstacle) -> np.ndarray:
    """An irrelevant object *near* the task but outside TRACE's relevance zones (issue #62 item 7): its centre 8-11 cm
    from the gripper -> target -> goal path (the corridor's half-width is 6 cm, the box's half-diagonal 3.5 cm), >= 14 cm
    from the target (relevance radius 12 cm) and >= 7 cm from the obstacle. Rejection sampling; in the rare layout where
    no such place is found, the old rule (>= 12 cm from everything) is the fallback."""
    for _ in range(400):
        cand = np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.25, 0.3)])
        path = min(_segment_distance(cand, gripper, target), _segment_distance(cand, target, goal))
        if (DISTRACTOR_BAND[0] <= path <= DISTRACTOR_BAND[1] and np.linalg.norm(cand - target) >= 0.14
                and np.linalg.norm(cand - obstacle) >= 0.07 and np.linalg.norm(cand - goal) >= 0.08):
            return cand
    for _ in range(200):
        cand = np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.25, 0.3)])
        clear = min(_segment_distance(cand, gripper, target), _segment_distance(cand, target, goal),
                    np.linalg.norm(cand - obstacle) - 0.03)
        if clear > 0.12:
            return cand
    return np.array([0.28, -0.28 if target[1] > 0 else 0.28])


def sample_layouts(seed: int, purpose: str, count: int) -> list[Layout]:
    """`count` layouts, half level I and half level II (alternating)."""
    rng = stream(seed, purpose)
    return [sample_layout(rng, 1 + i % 2) for i in range(count)]


def load_model():
    import mujoco

    return mujoco.MjModel.from_xml_path(str(ASSET))


@dataclass
class StepInfo:
    contact: bool = False          # simulator contact: relevant obstacle vs gripper or target
    distractor_contact: bool = False


@dataclass
class Episode:
    """What one rollout leaves behind for evaluation and for TRACE (proprioception, not images)."""

    layout: Layout
    gripper_path: list = field(default_factory=list)   # gripper xy after each step (start included)
    grasped_path: list = field(default_factory=list)
    contact: bool = False
    distractor_contact: bool = False
    max_displacement: float = 0.0    # of the relevant obstacle, simulator state (SafeLIBERO's reference rule)
    success: bool = False
    steps: int = 0


class TabletopEnv:
    """One scene. reset(layout) -> obs; step(action) -> (obs, reward, terminated, truncated, info)."""

    def __init__(self, model, cfg):
        import mujoco

        self.mj = mujoco
        self.model = model
        self.data = mujoco.MjData(model)
        self.max_step = float(cfg.max_step)
        self.substeps = int(cfg.substeps)
        self.max_steps = int(cfg.max_steps)
        self.grasp_radius = float(cfg.grasp_radius)
        self.goal_radius = float(cfg.goal_radius)
        name = lambda kind, n: mujoco.mj_name2id(model, kind, n)  # noqa: E731
        self.gid = {g: name(mujoco.mjtObj.mjOBJ_GEOM, g) for g in
                    ("palm", "finger_l", "finger_r", "target", "obstacle", "distractor", "goal")}
        self.mocap = model.body_mocapid[name(mujoco.mjtObj.mjOBJ_BODY, "gripper")]
        self.goal_mocap = model.body_mocapid[name(mujoco.mjtObj.mjOBJ_BODY, "goal")]
        self.qadr = {o: model.jnt_qposadr[name(mujoco.mjtObj.mjOBJ_JOINT, f"{o}_joint")] for o in OBJECTS}
        self.vadr = {o: model.jnt_dofadr[name(mujoco.mjtObj.mjOBJ_JOINT, f"{o}_joint")] for o in OBJECTS}
        self.roles = np.zeros(model.ngeom, int)
        self.roles[[self.gid[g] for g in ("palm", "finger_l", "finger_r", "target")]] = 1
        self.roles[self.gid["obstacle"]] = 2
        self.roles[self.gid["distractor"]] = 4

    # -- state -------------------------------------------------------------------------------------------------------
    def pos(self, obj: str) -> np.ndarray:
        return self.data.qpos[self.qadr[obj]:self.qadr[obj] + 3].copy()

    def _place(self, obj: str, xy, z: float) -> None:
        a = self.qadr[obj]
        self.data.qpos[a:a + 7] = [xy[0], xy[1], z, 1, 0, 0, 0]
        self.data.qvel[self.vadr[obj]:self.vadr[obj] + 6] = 0

    @property
    def gripper(self) -> np.ndarray:
        return self.data.mocap_pos[self.mocap, :2].copy()

    def observation(self) -> np.ndarray:
        """Policy input (`observation.policy_observation`): the subgoal, proprioception and the objects TRACE perceived
        in the first frame (`self.perceived`, set by the rollout; no relevance labels). It reads no simulator state of
        the obstacle or the distractor."""
        sub = self.layout.goal if self.grasped else self.pos("target")[:2]
        return policy_observation(self.gripper, sub, self.grasped, self.perceived)

    # -- gym-style API -----------------------------------------------------------------------------------------------
    def reset(self, layout: Layout) -> np.ndarray:
        self.mj.mj_resetData(self.model, self.data)
        self.layout = layout
        self.data.mocap_pos[self.mocap] = [*layout.gripper, GRIPPER_Z]
        self._place("target", layout.target, TARGET_HALF)
        self._place("obstacle", layout.obstacle, 0.06)
        self._place("distractor", layout.distractor, 0.03)
        self.data.mocap_pos[self.goal_mocap] = [*layout.goal, 0.0005]
        self.mj.mj_forward(self.model, self.data)
        self.obstacle0 = self.pos("obstacle")
        self.grasped = False
        self.perceived = []
        self.episode = Episode(layout, [self.gripper], [False])
        self.done = False
        return self.observation()

    def perceive(self, objects) -> np.ndarray:
        """Hand the env the objects perceived in the first frame (`observation.perceived_objects`); the new obs."""
        self.perceived = list(objects)
        return self.observation()

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, StepInfo]:
        if self.done:
            raise RuntimeError("step() after the episode ended; call reset()")
        a = np.clip(np.asarray(action, float), -1.0, 1.0) * self.max_step
        start = self.data.mocap_pos[self.mocap].copy()
        end = start.copy()
        end[:2] = np.clip(start[:2] + a, -0.32, 0.32)
        info = StepInfo()
        for k in range(1, self.substeps + 1):
            self.data.mocap_pos[self.mocap] = start + (end - start) * k / self.substeps
            if self.grasped:
                self._place("target", self.data.mocap_pos[self.mocap, :2], CARRY_Z)
            self.mj.mj_step(self.model, self.data)
            self._scan_contacts(info)
        ep = self.episode
        ep.contact |= info.contact
        ep.distractor_contact |= info.distractor_contact
        ep.max_displacement = max(ep.max_displacement, float(np.linalg.norm(self.pos("obstacle") - self.obstacle0)))
        g = self.gripper
        if not self.grasped and np.linalg.norm(g - self.pos("target")[:2]) < self.grasp_radius:
            self.grasped = True
            self._place("target", g, CARRY_Z)
            self.mj.mj_forward(self.model, self.data)
        ep.steps += 1
        ep.gripper_path.append(g)
        ep.grasped_path.append(self.grasped)
        success = self.grasped and np.linalg.norm(self.pos("target")[:2] - self.layout.goal) < self.goal_radius
        ep.success = bool(success)
        truncated = ep.steps >= self.max_steps and not success
        self.done = bool(success or truncated)
        return self.observation(), float(success), bool(success), truncated, info

    def _scan_contacts(self, info: StepInfo) -> None:
        """Contacts of a mover (gripper geoms, target) with the obstacle (roles 1|2) or the distractor (roles 1|4)."""
        if self.data.ncon == 0:
            return
        roles = self.roles[self.data.contact.geom]
        pair = roles[:, 0] | roles[:, 1]
        info.contact |= bool(((pair & 3) == 3).any())
        info.distractor_contact |= bool(((pair & 5) == 5).any())


class Camera:
    """Offscreen 64x64 RGB-D of the fixed 'front' camera (EGL on a headless CPU machine: Mesa's llvmpipe)."""

    def __init__(self, model, size: int):
        import os

        os.environ.setdefault("MUJOCO_GL", "egl")
        os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])
        import mujoco

        self.mj = mujoco
        self.size = size
        try:
            self.renderer = mujoco.Renderer(model, size, size)
        except Exception as exc:  # noqa: BLE001 - any GL failure gets the same actionable message
            from neurips26.common.pipeline.errors import UserError

            raise UserError(f"dodge_it: cannot create an offscreen OpenGL context with MUJOCO_GL="
                            f"{os.environ['MUJOCO_GL']} ({type(exc).__name__}: {exc}). Install the EGL/Mesa packages "
                            "of config/debian-packages.txt (libegl1 libegl-mesa0 libgl1-mesa-dri) or set "
                            "MUJOCO_GL=osmesa with libosmesa6") from None
        self.cam = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, "front")

    def rgbd(self, data) -> tuple[np.ndarray, np.ndarray]:
        r = self.renderer
        r.update_scene(data, self.cam)
        rgb = r.render().copy()
        r.enable_depth_rendering()
        r.update_scene(data, self.cam)
        depth = r.render().copy()
        r.disable_depth_rendering()
        return rgb, depth

    def intrinsics(self, model, data) -> tuple[float, np.ndarray, np.ndarray]:
        """Focal length in pixels, camera position and camera-to-world rotation (columns: camera x, y, z axes)."""
        f = 0.5 * self.size / np.tan(np.deg2rad(model.cam_fovy[self.cam]) / 2)
        return float(f), data.cam_xpos[self.cam].copy(), data.cam_xmat[self.cam].reshape(3, 3).copy()

    def close(self) -> None:
        try:
            self.renderer.close()
        except Exception:  # noqa: BLE001 - a failing GL teardown at exit must not mask results
            pass

"""What the learned policies see (issue #62 item 1): no simulator state about obstacles.

The vector is the subgoal relative to the gripper (the target until it is grasped, then the goal), the grasp flag
(proprioception) and up to `SLOTS` objects that TRACE's perception found in the first RGB-D frame, each as its
bounding-box centre relative to the gripper, its half-extent and a presence flag. The objects carry no relevance label
and no identity (obstacle or distractor): the slots are ordered by distance to the gripper, so the policy must learn
from the reward which of them matter. BC, both RL variants and the positive control all read this vector; the CBF filter
and the potential field read the same perceived objects. Lengths are in units of 10 cm.
"""

from __future__ import annotations

import numpy as np

SLOTS = 3  # a layout has two objects besides the target; a third slot absorbs a split cluster
UNIT = 0.1
OBS_DIM = 3 + 4 * SLOTS


def perceived_objects(scene) -> list[tuple[np.ndarray, float]]:
    """(centre xy, half-extent) of every non-target, non-gripper cluster TRACE perceived (its relevance is not used)."""
    out = []
    for obj in scene.objects:
        lo, hi = obj.points[:, :2].min(axis=0), obj.points[:, :2].max(axis=0)
        out.append(((lo + hi) / 2, float(np.max(hi - lo) / 2)))
    return out


def policy_observation(gripper, subgoal, grasped: bool, objects) -> np.ndarray:
    """[subgoal - gripper (2), grasped (1), SLOTS x (centre - gripper (2), half-extent (1), present (1))]."""
    g = np.asarray(gripper, float)
    slots = np.zeros((SLOTS, 4))
    nearest = sorted(objects, key=lambda o: float(np.linalg.norm(np.asarray(o[0]) - g)))[:SLOTS]
    for k, (centre, half) in enumerate(nearest):
        slots[k] = [*((np.asarray(centre, float) - g) / UNIT), half / UNIT, 1.0]
    head = [*((np.asarray(subgoal, float) - g) / UNIT), float(grasped)]
    return np.concatenate([head, slots.ravel()]).astype(np.float32)

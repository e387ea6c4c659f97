"""Cached member predictions: one wide CSV per (task, family) with the pool row, the label and one column per member.

Predictions are made once per task, family and run seed (a pipeline artifact): the seed draws the task's train / pool
split and the members' own randomness (paraphrase word drops, solvers, few-shot exemplars); the run stages then vary
the calibration/test halves and the random baseline with the same seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.ensemble_mi.data import Task

FAMILIES = ("classic", "minilm", "bagged", "smollm2")


def frame(task: Task, members: dict[str, np.ndarray]) -> pd.DataFrame:
    n = len(task.pool.y)
    for name, pred in members.items():
        if pred.shape != (n,) or pred.min() < 0 or pred.max() >= task.n_classes:
            raise UserError(f"member {name} of {task.name}: expected {n} labels in 0..{task.n_classes - 1}")
    return pd.DataFrame({"row": np.arange(n), "y": task.pool.y, **members})


def merge(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The task's whole pool: every family's members side by side (families must agree on rows and labels)."""
    out = frames[0]
    for other in frames[1:]:
        if not (np.array_equal(out.row, other.row) and np.array_equal(out.y, other.y)):
            raise UserError("cached predictions of one task disagree on the pool rows or labels: rebuild them")
        out = pd.concat([out, other.drop(columns=["row", "y"])], axis=1)
    return out

"""DODGE-IT: collision outcomes from RGB-D (TRACE) as RL feedback for a manipulation policy (seed abstract 13).

MuJoCo picks its GL backend when it is first imported, so the headless default (EGL) is set here, before any module of
this paper imports mujoco; a user's own MUJOCO_GL (e.g. osmesa) wins."""

import os

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])

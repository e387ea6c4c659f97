"""TRACE against the simulator: back-projection vs the scene's geometry, the plane fit vs a known plane, and the
collision outcome on scripted collision / no-collision episodes vs MuJoCo's contacts."""

import numpy as np
import pytest

from neurips26.common.pipeline.config import compose
from neurips26.papers.dodge_it import rollout, trace
from neurips26.papers.dodge_it.env import TARGET_HALF, Camera, Layout, TabletopEnv, load_model, sample_layouts


@pytest.fixture(scope="module")
def scene():
    cfg = compose("dodge_it", ["scale=tiny"])
    model = load_model()
    camera = Camera(model, int(cfg.env.image_size))
    yield cfg, model, camera
    camera.close()


def _layout(level=2):
    return Layout(level, np.array([-0.22, 0.0]), np.array([-0.03, 0.02]), np.array([0.2, -0.05]),
                  np.array([0.085, -0.015]), np.array([0.25, 0.25]))


@pytest.mark.slow
def test_backprojection_matches_the_simulator_geometry(scene):
    cfg, model, camera = scene
    env = TabletopEnv(model, cfg.env)
    layout = _layout()
    env.reset(layout)
    rgb, depth = camera.rgbd(env.data)
    points = trace.backproject(depth, *camera.intrinsics(model, env.data))
    kinds = trace.colour_kind(rgb)
    on_table = (points[..., 2] < 0.003) & (np.linalg.norm(points[..., :2], axis=-1) < 0.3)
    assert on_table.sum() > 1000 and np.abs(points[on_table, 2]).max() < 0.002  # the table top is z = 0
    red = points[kinds == 1]
    assert len(red) >= 4
    # every red pixel lies on the target cube's surface (half-size 2 cm, centred at (x, y, 0.02))
    local = np.abs(red - np.array([*layout.target, TARGET_HALF]))
    assert local.max(axis=0).max() < TARGET_HALF + 0.003
    assert np.abs(local.max(axis=1) - TARGET_HALF).max() < 0.003


def test_ransac_recovers_a_known_plane_among_outliers():
    rng = np.random.default_rng(7)
    normal = np.array([0.1, -0.2, 1.0]) / np.linalg.norm([0.1, -0.2, 1.0])
    xy = rng.uniform(-0.3, 0.3, (3000, 2))
    plane_pts = np.column_stack([xy, (0.05 - normal[0] * xy[:, 0] - normal[1] * xy[:, 1]) / normal[2]])
    outliers = np.column_stack([rng.uniform(-0.3, 0.3, (600, 2)), rng.uniform(0.15, 0.4, 600)])  # objects above it
    n, d = trace.ransac_plane(np.vstack([plane_pts, outliers]), np.random.default_rng(0))
    assert np.allclose(n, normal, atol=1e-6) and abs(d + 0.05) < 1e-6


def test_relevance_near_target_or_in_the_corridor():
    g, t, goal = np.array([-0.2, 0.0]), np.array([0.0, 0.0]), np.array([0.2, 0.1])
    assert trace.relevant(np.array([0.05, 0.05]), t, g, goal, 0.12, 0.06)       # near the target
    assert trace.relevant(np.array([0.15, 0.1]), t, g, goal, 0.12, 0.06)        # on the target -> goal path
    assert not trace.relevant(np.array([0.0, 0.25]), t, g, goal, 0.12, 0.06)    # far from both


@pytest.mark.parametrize("controller, collides", [("expert", True), ("avoider", False)])
def test_trace_on_scripted_episodes_agrees_with_contacts(scene, controller, collides):
    cfg, model, camera = scene
    layouts = [lay for lay in sample_layouts(11, "test", 8) if lay.level == 2]  # the blind expert always hits these
    ctl = rollout.expert_controller(cfg) if controller == "expert" else rollout.avoider_controller(cfg)
    res = rollout.run(model, camera, layouts, ctl, cfg)
    for rec in res.records:
        assert rec["contact"] == int(collides)
        assert rec["collision_ref"] == int(collides)          # SafeLIBERO's displacement rule agrees
        assert rec["trace_collision"] == collides
        assert rec["relevance_correct"] == 1                   # the obstacle relevant, the distractor not
        assert rec["success"] == 1

"""Every scale of mental_imagery runs the design its pilots chose (JOURNAL.md: the input of pilot 4, z_embed of pilot 6,
VLM pretraining of pilot 5), unless a scale overrides a setting on purpose (listed here, with the reason). Before this
test, scale=paper composed to patch 4, no 2D positions, shared z_embed and no pretraining: settings the pilots rejected
(issue #64)."""

from __future__ import annotations

import pytest

from neurips26.common.pipeline.config import compose

PILOT_DESIGN = {
    ("model", "patch"): 6,
    ("model", "grid_pos"): True,
    ("model", "z_embed"): "separate",
    ("pretrain", "steps"): 2000,
}
# (scale, setting) -> why the scale departs from the pilots' design
ON_PURPOSE = {("tiny", ("pretrain", "steps")): "plumbing: 4 steps run the pretraining path in seconds"}


@pytest.mark.parametrize("scale", ["tiny", "default", "long", "paper"])
def test_every_scale_runs_the_pilots_design(repo_root, scale):
    cfg = compose("mental_imagery", [f"scale={scale}"], root=repo_root)
    for (section, key), chosen in PILOT_DESIGN.items():
        value = cfg[section][key]
        if (scale, (section, key)) in ON_PURPOSE:
            assert value != chosen, f"{scale}: {section}.{key} is listed as an override but is the pilots' value"
        else:
            assert value == chosen, f"{scale}: {section}.{key} = {value!r}, the pilots chose {chosen!r}"


def test_every_scale_pretrains(repo_root):
    for scale in ("tiny", "default", "long", "paper"):
        assert compose("mental_imagery", [f"scale={scale}"], root=repo_root).pretrain.steps > 0, scale

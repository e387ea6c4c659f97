"""common/pipeline/stage.py: the shared claims stage reads its tables in order, passes the config when asked, and refuses a
wrong number of inputs before writing anything."""

import json

import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.claims import Claim, RuleTest
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext, claims_stage


def _tables(tmp_path, *values):
    paths = []
    for i, v in enumerate(values):
        paths.append(tmp_path / f"t{i}.csv")
        pd.DataFrame({"x": [v]}).to_csv(paths[-1], index=False)
    return paths


def _build(first, second, cfg=None):
    gap = float(first.x.iloc[0] - second.x.iloc[0])
    threshold = float(cfg.threshold) if cfg is not None else 0.0
    claim = Claim("gap", "the first beats the second", f"gap > {threshold}",
                  [RuleTest("gap", {"gap": gap}, f"gap > {threshold}", f"gap <= {threshold}")], [],
                  {"value": None, "where": "-"}, measured={"gap": gap})
    return [claim]


@pytest.mark.parametrize("with_config, threshold, outcome", [(True, 0.5, "fails"), (False, 0.5, "holds")])
def test_the_claims_stage_reads_tables_in_order_and_passes_the_config_when_asked(tmp_path, monkeypatch, with_config,
                                                                                  threshold, outcome):
    import neurips26.common.pipeline.claims as claims_module

    monkeypatch.setattr(claims_module, "registered_claims", lambda _: {"claims": [{"id": "gap"}], "sanity": []})
    cfg = OmegaConf.create({"paper_id": "mec_mmd", "scale_name": "default", "data": "embedded", "seeds": [0],
                            "threshold": threshold})
    outputs = [tmp_path / "claims.json", tmp_path / "metrics.json"]
    stage = claims_stage(_build if with_config else (lambda a, b: _build(a, b)), ("first", "second"), with_config)
    stage(StageContext("mec_mmd", cfg, inputs=_tables(tmp_path, 0.8, 0.4), outputs=outputs))
    document = json.loads(outputs[0].read_text())
    assert [(c["outcome"], c["verdict"]) for c in document["claims"]] == [(outcome, outcome)]
    assert document["provenance"]["scale"] == "default" and document["provenance"]["packages"]["numpy"]
    metrics = json.loads(outputs[1].read_text())
    assert metrics["gap.gap"] == pytest.approx(0.4) and metrics["gap.verdict"] == outcome


def test_the_claims_stage_names_its_tables_when_inputs_are_missing(tmp_path):
    outputs = [tmp_path / "claims.json", tmp_path / "metrics.json"]
    stage = claims_stage(_build, ("first", "second"))
    with pytest.raises(UserError, match="first.csv second.csv"):
        stage(StageContext("mec_mmd", OmegaConf.create({}), inputs=_tables(tmp_path, 1.0), outputs=outputs))
    assert not any(p.exists() for p in outputs)


def test_the_npz_figure_stage_draws_from_the_saved_arrays_and_refuses_other_inputs(tmp_path):
    import numpy as np

    from neurips26.common.pipeline.plotting import new_figure
    from neurips26.common.pipeline.stage import npz_figure_stage

    seen = {}

    def draw(arrays):
        seen.update(arrays)
        fig, (ax,) = new_figure()
        ax.imshow(arrays["frame"])
        return fig

    np.savez(tmp_path / "frames.npz", frame=np.eye(4))
    stage = npz_figure_stage(draw)
    stage(StageContext("dodge_it", OmegaConf.create({}), inputs=[tmp_path / "frames.npz"], outputs=[tmp_path / "f.png"]))
    assert (tmp_path / "f.png").stat().st_size > 0 and np.array_equal(seen["frame"], np.eye(4))
    with pytest.raises(UserError, match="ARRAYS.npz"):
        stage(StageContext("dodge_it", OmegaConf.create({}), inputs=[tmp_path / "t.csv"], outputs=[tmp_path / "g.png"]))
    assert not (tmp_path / "g.png").exists()

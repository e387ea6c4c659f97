"""Bad input to the data loader and the stages gives clear errors; claims follow from a table."""

import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.config import compose
from neurips26.common.errors import UserError
from neurips26.papers.dofp_lut import data, paper_claims


def test_unknown_and_missing_images_are_clear_errors(tmp_path):
    with pytest.raises(UserError, match="unknown image"):
        data.load_rgb(tmp_path, "lena", 64)
    with pytest.raises(UserError, match="data_prepare"):
        data.load_rgb(tmp_path, "astronaut", 64)


def test_a_corrupt_image_file_is_a_clear_error(tmp_path):
    (tmp_path / "astronaut.png").write_bytes(b"not a png")
    with pytest.raises(UserError, match="cannot read"):
        data.load_rgb(tmp_path, "astronaut", 64)


def test_claims_are_computed_from_the_table():
    cfg = compose("dofp_lut", ["scale=tiny"])
    cfg = OmegaConf.merge(cfg, {"timing": {"enabled": True}})
    rows = {"bilinear": (28.0, 12.0, 14.0, 50.0, 0.0, None), "teacher": (29.3, 13.5, 12.0, 4000.0, 0.0, 4e6),
            "dofp_lut": (29.2, 13.4, 12.1, 120.0, 700.0, None), "dofp_lut_no_A": (28.5, 13.0, 12.5, None, 700.0, None),
            "dofp_lut_no_P": (29.1, 12.8, 13.0, None, 700.0, None), "dofp_lut_no_H": (28.9, 13.4, 12.1, None, 700, None)}
    table = pd.DataFrame([{"method": m, "cpsnr": v[0], "psnr_dolp": v[1], "aolp_mae_deg": v[2], "ms_per_mp": v[3],
                           "lut_kb": v[4], "activation_kb_per_mp": v[5], "psnr_s0": 25.0} for m, v in rows.items()])
    ablation = pd.DataFrame([{"method": m, "cpsnr": c} for m, c in [
        ("dofp_lut", 29.0), ("dofp_lut_retrained_no_A", 28.7), ("dofp_lut_retrained_no_P", 28.9),
        ("dofp_lut_retrained_no_H", 28.5), ("dofp_lut_no_A", 20.0), ("dofp_lut_no_P", 27.0), ("dofp_lut_no_H", 15.0)]])
    claims, metrics = paper_claims.build(table, ablation, cfg)
    verdicts = {c.id: c.to_json()["holds"] for c in claims}
    assert verdicts == {"beats_bilinear_polarization": True, "near_teacher_and_fast": True,
                        "each_component_helps": True, "lut_memory_small": True}
    table.loc[table.method == "dofp_lut", "ms_per_mp"] = 200.0  # 4x bilinear: no longer within 3x
    assert paper_claims.build(table, ablation, cfg)[0][1].to_json()["holds"] is False
    ablation.loc[ablation.method == "dofp_lut_retrained_no_P", "cpsnr"] = 29.1  # retrained without P is better
    assert paper_claims.build(table, ablation, cfg)[0][2].to_json()["holds"] is False
    off = paper_claims.build(table, ablation, OmegaConf.merge(cfg, {"timing": {"enabled": False}}))[0][1].to_json()
    assert off["holds"] is None and "timing" in off["why_untested"]

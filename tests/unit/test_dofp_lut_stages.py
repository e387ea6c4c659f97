"""Bad input to the data loader and the stages gives clear errors; claims follow from a table."""

import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.dofp_lut import data, paper_claims, tables
from tests.claims_check import checked_document


def test_unknown_and_missing_images_are_clear_errors(tmp_path):
    with pytest.raises(UserError, match="unknown image"):
        data.load_rgb(tmp_path, "lena", 64)
    with pytest.raises(UserError, match="data_prepare"):
        data.load_rgb(tmp_path, "astronaut", 64)


def test_a_corrupt_image_file_is_a_clear_error(tmp_path):
    (tmp_path / "astronaut.png").write_bytes(b"not a png")
    with pytest.raises(UserError, match="cannot read"):
        data.load_rgb(tmp_path, "astronaut", 64)


# per method: (cpsnr, psnr_dolp, aolp_mae_deg, ms_per_mp, lut_kb, activation_kb_per_mp); the seeds move them a little
ROWS = {"bilinear": (28.0, 12.0, 14.0, 50.0, 0.0, None), "teacher": (29.3, 13.5, 12.0, 4000.0, 0.0, 4e6),
        "residual_interp": (28.5, 11.5, 14.0, 60.0, 0.0, None), "polanalyser": (28.1, 11.9, 14.1, 55.0, 0.0, None),
        "polanalyser_ea": (28.1, 11.8, 14.1, 48.0, 0.0, None), "bilinear_kernel": (None, None, None, 46.0, 0.0, None),
        "dofp_lut": (29.2, 13.4, 12.1, 120.0, 700.0, None), "dofp_lut_no_A": (28.5, 13.0, 12.5, None, 700.0, None),
        "dofp_lut_no_P": (29.1, 12.8, 13.0, None, 700.0, None), "dofp_lut_no_H": (28.9, 13.4, 12.1, None, 700, None)}
RETRAINED = {"A": 28.7, "P": 28.9, "H": 28.5}


def _runs(rows=ROWS, retrained=RETRAINED, seeds=(0, 1, 2)):
    run, ablation = [], []
    for k, seed in enumerate(seeds):
        shift = 0.05 * (k - 1)
        for image in ("astronaut", "coffee", "motorcycle"):
            for m, v in rows.items():
                if v[0] is None:  # timed only (the kernel's bilinear): no quality rows, as in the pipeline
                    continue
                run.append({"seed": seed, "method": m, "role": "x", "image": image, "cpsnr": v[0] + shift,
                            "psnr_s0": 25.0, "psnr_dolp": v[1] + shift, "aolp_mae_deg": v[2] - shift,
                            "lut_kb": v[4], "activation_kb_per_mp": v[5]})
            for stage, cpsnr in retrained.items():
                ablation.append({"seed": seed, "method": f"dofp_lut_retrained_no_{stage}", "role": "ablation (retrained)",
                                 "image": image, "cpsnr": cpsnr + 2 * shift, "psnr_s0": 25.0, "psnr_dolp": 13.0,
                                 "aolp_mae_deg": 12.0})
    runs, ablation = pd.DataFrame(run), pd.DataFrame(ablation)
    main = tables.table_main(runs, timing_frame(rows))
    first = tables.table_ablation(pd.concat([runs[runs.seed == seeds[0]], ablation[ablation.seed == seeds[0]]]))
    return main, first, runs, ablation


def timing_frame(rows=ROWS, spread=0.05):
    """timing.csv: equal-terms medians with a +-5% bootstrap interval."""
    ms = [float("nan") if v[3] is None else v[3] for v in rows.values()]
    return pd.DataFrame({"method": list(rows), "ms_per_mp": ms, "equal_terms_ms_per_mp": ms,
                         "equal_terms_ms_per_mp_lo": [m * (1 - spread) for m in ms],
                         "equal_terms_ms_per_mp_hi": [m * (1 + spread) for m in ms], "native_ms_per_mp": ms})


def digests(kernel=("a", "a", "a", "a"), threads=(1, 1, 2, 2)):
    rows = [{"implementation": impl, "threads": t, "run": i, "sha256": d} for impl in ("dofp_lut", "dofp_lut_torch")
            for i, (t, d) in enumerate(zip(threads, kernel if impl == "dofp_lut" else "bbbb", strict=True))]
    control = [{**r, "implementation": "control_one_ulp"} for r in rows[:4]]
    control[-1]["sha256"] = "perturbed"
    return pd.DataFrame(rows + control)


def rates(fps=40.0, spread=0.1):
    return pd.DataFrame({"method": ["dofp_lut", "dofp_lut"], "device": ["cpu (x86_64)"] * 2, "threads": [1, 2],
                         "fps": [fps / 2, fps], "fps_lo": [fps / 2 * (1 - spread), fps * (1 - spread)],
                         "fps_hi": [fps / 2 * (1 + spread), fps * (1 + spread)]})


def _verdicts(cfg, *frames, scale="default", timing=None, determinism=None, realtime=None):
    timing = timing_frame() if timing is None else timing
    determinism = digests() if determinism is None else determinism
    realtime = rates() if realtime is None else realtime
    claims, _ = paper_claims.build(*frames, cfg, timing=timing, determinism=determinism, realtime=realtime)
    return {c.id: c.to_json(scale, "embedded") for c in claims}


@pytest.fixture
def cfg():
    return OmegaConf.merge(compose("dofp_lut", ["scale=tiny"]), {"timing": {"enabled": True}})


def test_claims_are_computed_from_the_tables(cfg):
    claims = _verdicts(cfg, *_runs())
    assert {k: c["verdict"] for k, c in claims.items()} == {
        "beats_interpolation_polarization": "holds", "near_teacher_and_fast": "holds", "each_component_helps": "holds",
        "lut_memory_small": "holds", "deterministic_inference": "holds", "real_time": "holds",
        "real_time_gpu": "inconclusive", "first_lut_framework": "inconclusive"}
    assert len(claims["beats_interpolation_polarization"]["tests"]) == 8  # 4 interpolations x (DoLP PSNR, AoLP)
    helps = claims["each_component_helps"]
    assert [t["n"] for t in helps["tests"]] == [3, 3, 3] and set(helps["per_seed"]) == {"0", "1", "2"}
    # seed k: DoFP-LUT 29.2 + 0.05 (k - 1), retrained without H 28.5 + 0.1 (k - 1)
    assert [helps["per_seed"][s]["CPSNR DoFP-LUT - retrained without H (dB)"] for s in "012"] == \
        pytest.approx([0.75, 0.7, 0.65])
    assert claims["beats_interpolation_polarization"]["tests"][1]["side"] == "<"
    tiny = _verdicts(cfg, *_runs(), scale="tiny")
    assert all(c["verdict"] == "inconclusive" for c in tiny.values())


def test_a_slow_lut_fails_the_speed_rule(cfg):
    rows = {**ROWS, "dofp_lut": (29.2, 13.4, 12.1, 200.0, 700.0, None)}  # 4.3x the fastest bilinear: not within 3x
    claim = _verdicts(cfg, *_runs(rows), timing=timing_frame(rows))["near_teacher_and_fast"]
    assert claim["verdict"] == "fails" and [t["outcome"] for t in claim["tests"]] == ["holds", "fails"]
    assert "bilinear_kernel" in claim["tests"][1]["name"]  # the fastest reference, not the torch bilinear


def test_the_fastest_bilinear_decides_and_a_straddling_ratio_is_inconclusive(cfg):
    # 135 ms/MP: 2.7x the torch bilinear (50) but 2.93x the kernel's bilinear (46), interval [2.65, 3.24]
    rows = {**ROWS, "dofp_lut": (29.2, 13.4, 12.1, 135.0, 700.0, None)}
    claim = _verdicts(cfg, *_runs(rows), timing=timing_frame(rows))["near_teacher_and_fast"]
    assert claim["tests"][1]["outcome"] == "inconclusive"
    # the negative control (the teacher in DoFP-LUT's place) fails the rule, so it passes
    assert [c["passed"] for c in claim["controls"]] == [True]


def test_deterministic_and_real_time_claims_can_fail(cfg):
    split = _verdicts(cfg, *_runs(), determinism=digests(kernel=("a", "a", "c", "c")))
    assert split["deterministic_inference"]["verdict"] == "fails"
    one_thread = _verdicts(cfg, *_runs(), determinism=digests(threads=(1, 1, 1, 1)))
    assert one_thread["deterministic_inference"]["verdict"] == "inconclusive"
    slow = _verdicts(cfg, *_runs(), realtime=rates(fps=20.0))
    assert slow["real_time"]["verdict"] == "fails"
    near = _verdicts(cfg, *_runs(), realtime=rates(fps=31.0))  # interval [27.9, 34.1] straddles 30
    assert near["real_time"]["verdict"] == "inconclusive"
    assert "no fused GPU kernel" in near["real_time_gpu"]["why_inconclusive"]


def test_a_component_that_does_not_help_fails(cfg):
    claim = _verdicts(cfg, *_runs(retrained={**RETRAINED, "P": 29.4}))["each_component_helps"]
    assert claim["verdict"] == "fails" and [t["outcome"] for t in claim["tests"]] == ["holds", "fails", "holds"]


def test_worse_than_bilinear_fails_and_one_seed_is_inconclusive(cfg):
    rows = {**ROWS, "dofp_lut": (29.2, 11.0, 12.1, 120.0, 700.0, None)}  # DoLP PSNR 1 dB below bilinear
    assert _verdicts(cfg, *_runs(rows))["beats_interpolation_polarization"]["verdict"] == "fails"
    claim = _verdicts(cfg, *_runs(seeds=(0,)))["beats_interpolation_polarization"]
    assert claim["verdict"] == "inconclusive" and "at least 3" in claim["why_inconclusive"]


def test_speed_is_untested_when_timing_is_off(cfg):
    off = _verdicts(OmegaConf.merge(cfg, {"timing": {"enabled": False}}), *_runs())["near_teacher_and_fast"]
    assert off["verdict"] == "inconclusive" and "timing" in off["why_inconclusive"]


def test_the_claims_document_validates_against_the_schema_and_the_registry(cfg, tmp_path):
    claims, _ = paper_claims.build(*_runs(), cfg, timing=timing_frame(), determinism=digests(), realtime=rates())
    checked_document("dofp_lut", claims, tmp_path)

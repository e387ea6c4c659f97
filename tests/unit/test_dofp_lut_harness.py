"""Equal-terms timing (harness.py, pipelines.py): the harness charges each method exactly its declared conversions
(stubs of known cost on a fake clock), every pipeline starts from the uint16 mosaic and ends at (3, 4, H, W)
float32, and the fast bilinear references compute the torch bilinear."""

import numpy as np
import pytest
import torch

from neurips26.papers.dofp_lut import baselines, harness, interp, pipelines
from neurips26.papers.dofp_lut.cv_bilinear import cv2_bilinear


class FakeClock:
    """A clock that moves only when a stub says it worked: each stub advances it by its declared cost."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def cost(self, seconds, make):
        def stub(x):
            self.now += seconds
            return make(x)

        return stub


def planes(raw16):
    return np.zeros((3, 4, *raw16.shape), dtype=np.float32)


RAW16 = np.zeros((8, 12), dtype=np.uint16)


@pytest.mark.parametrize("cost_in, cost_core, cost_out", [(0.002, 0.003, 0.007), (0.0, 0.005, 0.0), (0.004, 0.001, 0.0)])
def test_the_harness_charges_exactly_the_declared_conversions(cost_in, cost_core, cost_out):
    clock = FakeClock()
    pipe = harness.Pipeline("stub", clock.cost(cost_core, lambda x: x), clock.cost(cost_in, lambda r: r),
                            clock.cost(cost_out, planes))
    times = harness.measure(pipe, RAW16, warmup=2, repeats=5, clock=clock)
    assert times["equal_terms"] == pytest.approx([cost_in + cost_core + cost_out] * 5)
    assert times["native"] == pytest.approx([cost_core] * 5)
    assert times["conversion"] == pytest.approx([cost_in + cost_out] * 5)
    row = harness.summarise(times, megapixels=RAW16.size / 1e6)
    assert row["equal_terms_ms_per_mp"] == pytest.approx(1000 * (cost_in + cost_core + cost_out) / (RAW16.size / 1e6))
    assert row["repeats"] == 5


def test_a_pipeline_must_end_at_twelve_float32_planes_and_start_from_uint16():
    with pytest.raises(TypeError, match="float32"):
        harness.measure(harness.Pipeline("f64", lambda r: planes(r).astype(np.float64)), RAW16, 0, 1)
    with pytest.raises(TypeError, match="3, 4"):
        harness.measure(harness.Pipeline("hwc", lambda r: np.zeros((*r.shape, 12), np.float32)), RAW16, 0, 1)
    with pytest.raises(TypeError, match="uint16"):
        harness.measure(harness.Pipeline("ok", planes), RAW16.astype(np.float32), 0, 1)


def test_the_median_interval_brackets_the_median_and_is_reproducible():
    values = np.random.default_rng(0).lognormal(size=9)
    median, lo, hi = harness.median_interval(values)
    assert lo <= median <= hi and median == np.median(values)
    assert harness.median_interval(values) == (median, lo, hi)
    assert harness.median_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)


def scene16(h=40, w=52, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.random((h, w)) * 60000 + 1000).astype(np.uint16)


def test_opencv_bilinear_computes_the_torch_bilinear_from_uint16():
    raw16 = scene16()
    ref = interp.bilinear(torch.from_numpy(pipelines.to_float(raw16))).numpy()
    got = harness.Pipeline("cv2", cv2_bilinear)(raw16)
    assert got.dtype == np.float32 and np.allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_polanalyser_pipeline_matches_its_float_baseline():
    raw16 = scene16()
    got = pipelines.polanalyser_pipeline("polanalyser", "")(raw16)
    # the float baseline rescales by the frame's maximum before its own uint16 rounding: equal up to that rounding
    ref = baselines.polanalyser_demosaic(torch.from_numpy(pipelines.to_float(raw16))).numpy()
    assert got.shape == ref.shape and np.abs(got - ref).max() < 2 / 65535


def test_torch_pipelines_declare_the_input_conversion():
    pipe = pipelines.torch_pipeline("bilinear", interp.bilinear)
    raw16 = scene16()
    assert isinstance(pipe.to_native(raw16), torch.Tensor) and "uint16" in pipe.conversions
    assert np.array_equal(pipe(raw16), interp.bilinear(torch.from_numpy(pipelines.to_float(raw16))).numpy())


def test_native_mosaic_is_full_scale_uint16():
    raw = torch.tensor([[0.0, 0.5], [1.0, 1.7]])
    assert pipelines.native_mosaic(raw).tolist() == [[0, 32768], [65535, 65535]]

"""DoFP-LUT against its teacher: compiled tables equal the heads at lattice points, the fast planar inference equals
the reference pipeline with table heads, and the redistribution preserves I0 + I90 = I45 + I135."""

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.common.pipeline.artifacts import write_npz
from neurips26.papers.dofp_lut import baselines, method
from neurips26.papers.dofp_lut import features as ft
from neurips26.papers.dofp_lut.mosaic import malus, mosaic

INDEX = OmegaConf.create({"residual_range": 0.5, "detail_range": 0.5, "generic_range": 2.0})


def random_teacher(seed=0, hidden=16):
    torch.manual_seed(seed)
    teacher = method.Teacher(hidden)
    for p in teacher.parameters():
        torch.nn.init.normal_(p, std=0.3)  # the zero-initialised last layers too: heads must be non-trivial
    return teacher.eval()


def scene(h=36, w=44, seed=0):
    gen = torch.Generator().manual_seed(seed)
    s0 = 0.2 + 0.6 * torch.rand(3, h, w, generator=gen)
    return mosaic(malus(s0, torch.rand(h, w, generator=gen) * 0.7, torch.rand(h, w, generator=gen) * 3.14))


def test_lattice_and_flat_index_agree():
    q = torch.randint(0, ft.LEVELS, (50, 4))
    assert torch.equal(ft.lattice(4)[ft.flat_index(q)], q.float() / (ft.LEVELS - 1))
    assert torch.equal(ft.quantise(ft.lattice(3)), (ft.lattice(3) * 16).round().long())


@pytest.mark.parametrize("stage", method.STAGES)
def test_lut_equals_the_teacher_head_at_lattice_points(stage):
    teacher = random_teacher()
    luts = method.compile_luts(teacher)
    points = ft.lattice(method.INDEX_DIMS[stage])[torch.randperm(ft.LEVELS ** method.INDEX_DIMS[stage])[:500]]
    with torch.no_grad():
        assert torch.allclose(method.LutHeads(luts)(stage, points), teacher(stage, points), atol=1e-6)
    assert luts[stage].shape[0] == ft.LEVELS ** method.INDEX_DIMS[stage]


def test_lut_pipeline_equals_teacher_pipeline_when_indices_sit_on_the_lattice():
    teacher, n = random_teacher(1), 64
    luts = method.compile_luts(teacher)
    gen = torch.Generator().manual_seed(0)
    x0 = 0.1 + torch.rand(n, 3, 4, generator=gen) * 0.4
    residual = (torch.randint(0, 17, (n, 4), generator=gen) / 16 - 0.5) * 2 * INDEX.residual_range
    detail = (torch.randint(0, 17, (n, 4), generator=gen) / 16 - 0.5) * 2 * INDEX.detail_range
    with torch.no_grad():
        for use in [("A",), ("H",), ("A", "H")]:  # P's index is computed, so it is on the lattice only by chance
            ours = method.pipeline(x0, x0.sum(-1) / 2, residual, detail, method.LutHeads(luts), INDEX, use)
            ref = method.pipeline(x0, x0.sum(-1) / 2, residual, detail, teacher, INDEX, use)
            assert torch.allclose(ours, ref, atol=1e-5)


def test_fast_planar_inference_equals_the_reference_pipeline():
    luts = method.compile_luts(random_teacher(2))
    raw = scene()
    fast = method.lut_demosaic(raw, luts, INDEX)
    pixels = method.as_pixels(ft.compute(raw))
    ref = method.pipeline(*pixels, method.LutHeads(luts), INDEX).reshape(*raw.shape, 3, 4).permute(2, 3, 0, 1)
    assert torch.allclose(fast, ref, atol=1e-5)
    teacher_img = method.teacher_demosaic(raw, random_teacher(2), INDEX, chunk=100)  # chunking changes nothing
    teacher_ref = method.pipeline(*pixels, random_teacher(2), INDEX).reshape(*raw.shape, 3, 4).permute(2, 3, 0, 1)
    assert torch.allclose(teacher_img, teacher_ref.detach(), atol=1e-5)


def test_redistribution_lut_preserves_the_orthogonal_pair_sums():
    luts = method.compile_luts(random_teacher(3))
    luts["P"] = torch.randn_like(luts["P"])  # any table: the write-back itself must preserve the identity
    raw = scene(seed=1)
    before = method.lut_demosaic(raw, luts, INDEX, use=("A",))
    after = method.lut_demosaic(raw, luts, INDEX, use=("A", "P"))
    assert not torch.allclose(before, after)
    for pair in [(0, 2), (1, 3)]:
        assert torch.allclose(before[:, pair[0]] + before[:, pair[1]], after[:, pair[0]] + after[:, pair[1]], atol=1e-5)


def test_untrained_heads_leave_the_bilinear_initialisation_unchanged():
    raw = scene(seed=2)
    luts = method.compile_luts(method.Teacher(8))
    assert torch.allclose(method.lut_demosaic(raw, luts, INDEX), ft.compute(raw).x0)


def test_analyzer_residuals_vanish_on_flat_scenes():
    flat = mosaic(torch.rand(3, 4, 1, 1).expand(3, 4, 20, 24).contiguous())
    f = ft.compute(flat)
    assert f.residual[..., 4:-4, 4:-4].abs().max() < 1e-4 and f.detail[..., 4:-4, 4:-4].abs().max() < 1e-4


def test_generic_table_equals_the_network_at_lattice_points():
    torch.manual_seed(0)
    net = baselines.GenericNet(8)
    for p in net.parameters():
        torch.nn.init.normal_(p, std=0.3)
    table = baselines.compile_generic(net)
    q = torch.randint(0, 17, (40, 4))
    phase = torch.randint(0, 4, (40,))
    with torch.no_grad():
        assert torch.allclose(table[phase * 17 ** 4 + ft.flat_index(q)], net(q.float() / 16, phase), atol=1e-6)


def test_npz_artifacts_are_byte_reproducible(tmp_path):
    arrays = {"b": np.arange(5.0), "a": np.ones((2, 3), dtype=np.float32)}
    write_npz(tmp_path / "one.npz", arrays)
    write_npz(tmp_path / "two.npz", dict(reversed(list(arrays.items()))))
    assert (tmp_path / "one.npz").read_bytes() == (tmp_path / "two.npz").read_bytes()
    loaded = np.load(tmp_path / "one.npz")
    assert np.array_equal(loaded["a"], arrays["a"]) and np.array_equal(loaded["b"], arrays["b"])

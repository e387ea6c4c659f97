"""Speed of DoFP-LUT inference (table lookups only: torch reference and fused kernel) against bilinear
initialisation and the teacher network, on a
512 x 512 colour-polarization mosaic, one thread.

    .venv/bin/pytest benchmarks/bench_dofp_lut.py --benchmark-enable
The pipeline's own measurements (the protocol behind the speed claim, and MP/s at several sizes and thread counts
with the memory-bandwidth bound) are the dofp_lut_timing and dofp_lut_throughput rules; see the paper README.
"""

import pytest
import torch
from omegaconf import OmegaConf

from neurips26.papers.dofp_lut import interp, method
from neurips26.papers.dofp_lut.mosaic import malus, mosaic

INDEX = OmegaConf.create({"residual_range": 0.5, "detail_range": 0.5})


@pytest.fixture(scope="module")
def setup():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    teacher = method.Teacher(128)
    for p in teacher.parameters():
        torch.nn.init.normal_(p, std=0.05)
    gen = torch.Generator().manual_seed(0)
    raw = mosaic(malus(torch.rand(3, 512, 512, generator=gen), torch.rand(512, 512, generator=gen),
                       torch.rand(512, 512, generator=gen) * 3.14))
    return raw, teacher.eval(), method.compile_luts(teacher)


def test_bilinear(benchmark, setup):
    raw, _, _ = setup
    assert benchmark(interp.bilinear, raw).shape == (3, 4, 512, 512)


def test_dofp_lut(benchmark, setup):
    raw, _, luts = setup
    assert benchmark(method.lut_demosaic, raw, luts, INDEX).shape == (3, 4, 512, 512)


def test_teacher(benchmark, setup):
    raw, teacher, luts = setup
    out = benchmark.pedantic(method.teacher_demosaic, args=(raw, teacher, INDEX), rounds=2)
    assert (out - method.lut_demosaic(raw, luts, INDEX)).abs().mean() < 0.05  # quantisation error only


def test_dofp_lut_fused_kernel(benchmark, setup):
    from neurips26.papers.dofp_lut import kernel

    raw, _, luts = setup
    kernel.set_threads(1)
    tables = kernel.tables(luts)
    out = benchmark(kernel.fused_demosaic, raw, tables, INDEX)
    assert abs(out - method.lut_demosaic(raw, luts, INDEX).numpy()).max() < 1e-4  # the torch reference's output

"""Deterministic inference: the fused kernel and the torch reference give bitwise-identical output across runs and
thread counts; the kernel with every stage off is the bilinear initialisation; the digest check sees a one-ulp
difference (so the pipeline's determinism claim can fail)."""

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.papers.dofp_lut import determinism, interp, method, timing

INDEX = OmegaConf.create({"residual_range": 0.5, "detail_range": 0.5})


def random_luts(seed=0):
    torch.manual_seed(seed)
    teacher = method.Teacher(16)
    for p in teacher.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return method.compile_luts(teacher.eval())


def frame(h=200, w=1100, seed=1):  # several 64 x 512 tiles, split differently over 1 and 2 threads
    gen = torch.Generator().manual_seed(seed)
    return (0.05 + torch.rand(h, w, generator=gen)) / 1.05


def test_a_one_ulp_difference_gives_a_second_digest():
    out = np.random.default_rng(0).random((3, 4, 5, 6)).astype(np.float32)
    assert determinism.digest(out) == determinism.digest(out.copy())
    assert determinism.digest(determinism.perturbed(out)) != determinism.digest(out)


def test_torch_reference_is_bitwise_identical_across_thread_counts():
    luts, raw = random_luts(), frame(96, 160)
    digests = set()
    for threads in (1, 2, 1):
        torch.set_num_threads(threads)
        digests.add(determinism.digest(method.lut_demosaic(raw, luts, INDEX).numpy()))
    assert len(digests) == 1


@pytest.mark.slow
def test_kernel_is_bitwise_identical_across_runs_and_thread_counts():
    from neurips26.papers.dofp_lut import kernel

    tables, raw = kernel.tables(random_luts()), frame()
    digests = set()
    for threads in (1, 2, 1, 2):
        kernel.set_threads(threads)
        digests.add(determinism.digest(kernel.fused_demosaic(raw, tables, INDEX)))
    assert len(digests) == 1


@pytest.mark.slow
def test_the_digest_rows_cover_every_thread_count_and_the_control():
    from neurips26.papers.dofp_lut import kernel, pipelines

    pipes = {"dofp_lut": pipelines.kernel_pipeline("dofp_lut", kernel.tables(random_luts()), INDEX)}
    raw16 = pipelines.native_mosaic(frame(64, 600))
    rows = determinism.digest_rows(pipes, raw16, [1, 2], 2, timing.set_threads)
    assert determinism.identical(rows) == {"dofp_lut": 1.0, "control_one_ulp": 2.0}
    assert sorted(set(rows.threads)) == [1, 2]


@pytest.mark.slow
def test_kernel_with_every_stage_off_is_the_bilinear_initialisation():
    from neurips26.papers.dofp_lut import kernel

    raw = frame(70, 530)
    got = kernel.fused_demosaic(raw, kernel.tables(random_luts()), INDEX, use=())
    assert np.allclose(got, interp.bilinear(raw).numpy(), rtol=1e-5, atol=1e-6)

"""The GPU path (`device: cuda`, pipelines.cuda_pipeline: the torch reference with tables on the GPU) equals the CPU
reference within float tolerance. Skipped without a GPU: the project's CPU machines have none, so this test has not
run here; a GPU session runs it with `pytest tests/unit/test_dofp_lut_gpu.py` (a few seconds)."""

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.papers.dofp_lut import method, pipelines

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA GPU on this machine: the GPU path cannot run here")
INDEX = OmegaConf.create({"residual_range": 0.5, "detail_range": 0.5})


def test_gpu_path_equals_the_cpu_reference():
    torch.manual_seed(0)
    teacher = method.Teacher(16)
    for p in teacher.parameters():
        torch.nn.init.normal_(p, std=0.3)
    luts = method.compile_luts(teacher.eval())
    raw16 = (np.random.default_rng(0).random((256, 320)) * 60000 + 1000).astype(np.uint16)
    gpu = pipelines.cuda_pipeline("dofp_lut_cuda", luts, INDEX)(raw16)
    cpu = method.lut_demosaic(pipelines.to_tensor(raw16), luts, INDEX).numpy()
    # the same arithmetic on another device: float rounding may flip an index near a half level (as the kernel test)
    close = (np.abs(gpu - cpu) <= 1e-5 + 1e-5 * np.abs(cpu)).all(axis=(0, 1))
    assert gpu.dtype == np.float32 and close.mean() >= 0.995

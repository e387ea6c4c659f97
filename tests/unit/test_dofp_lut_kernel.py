"""The fused Numba kernel against the torch reference `method.lut_demosaic`: equal up to float rounding on random
mosaics, at the frame's edges and across tile seams (tiny tiles put most pixels next to a seam), for every stage subset.

Float rounding may move an index that sits within ~1e-7 of a half level to the neighbouring lattice level (a different
table row); that is the only allowed difference, so at most a few pixels in a thousand may differ by more than rounding.
The first call compiles the kernel (seconds; cached outside the repository afterwards, see kernel.py)."""

from pathlib import Path

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.papers.dofp_lut import interp, kernel, method
from neurips26.papers.dofp_lut.mosaic import malus, mosaic

INDEX = OmegaConf.create({"residual_range": 0.5, "detail_range": 0.5})


def random_luts(seed=0):
    torch.manual_seed(seed)
    teacher = method.Teacher(16)
    for p in teacher.parameters():
        torch.nn.init.normal_(p, std=0.3)  # non-trivial heads (the last layers start at zero)
    return method.compile_luts(teacher.eval())


def random_mosaic(h, w, seed):
    gen = torch.Generator().manual_seed(seed)
    s0 = 0.05 + torch.rand(3, h, w, generator=gen)
    return mosaic(malus(s0, torch.rand(h, w, generator=gen), torch.rand(h, w, generator=gen) * 3.14))


def close(got, ref):
    """Per pixel: all 12 channels equal up to float rounding."""
    return (np.abs(got - ref) <= 1e-5 + 1e-5 * np.abs(ref)).all(axis=(0, 1))


@pytest.mark.slow
@pytest.mark.parametrize("shape,tile", [((37, 45), (5, 7)), ((20, 150), (16, 128)), ((64, 64), (3, 4)),
                                        ((9, 13), (16, 128)), ((70, 1101), (kernel.TILE_ROWS, kernel.TILE_COLS))])
def test_kernel_equals_reference_on_random_mosaics_and_edges(shape, tile):
    luts = random_luts()
    raw = random_mosaic(*shape, seed=sum(shape))
    ref = method.lut_demosaic(raw, luts, INDEX).numpy()
    got = kernel.fused_demosaic(raw, luts, INDEX, tile=tile)
    assert got.shape == ref.shape == (3, 4, *shape)
    ok = close(got, ref)
    assert ok.mean() >= 0.995
    edges = np.zeros(shape, bool)
    edges[:4], edges[-4:], edges[:, :4], edges[:, -4:] = True, True, True, True
    assert ok[edges].mean() >= 0.99  # the zero-padded, reflected and replicated borders
    assert np.abs(ref - interp.bilinear(raw).numpy()).max() > 0.01  # the tables do change the output


@pytest.mark.slow
@pytest.mark.parametrize("use", [(), ("A",), ("P",), ("H",), ("A", "P"), ("P", "H")])
def test_kernel_equals_reference_for_every_stage_subset(use):
    luts = random_luts(1)
    raw = random_mosaic(24, 31, seed=3)
    ref = method.lut_demosaic(raw, luts, INDEX, use=use).numpy()
    assert close(kernel.fused_demosaic(raw, luts, INDEX, use=use, tile=(5, 6)), ref).mean() >= 0.995
    if not use:  # no stage: exactly the bilinear initialisation
        np.testing.assert_allclose(ref, interp.bilinear(raw).numpy(), rtol=1e-5, atol=1e-6)


def test_rounding_is_half_to_even_like_torch():
    values = np.array([0, 0.5, 1.5, 2.5, 7.4999, 7.5, 8.5, 15.5, 16, 3.50001], dtype=np.float32)
    ours = [kernel._round_half_even(np.float32(v)) for v in values]
    assert ours == torch.round(torch.from_numpy(values)).long().tolist()


def test_bad_shape_and_cache_outside_the_repository():
    with pytest.raises(ValueError, match="H, W >= 3"):
        kernel.fused_demosaic(np.zeros((2, 8), np.float32), random_luts(), INDEX)
    import os

    repo = Path(__file__).resolve().parents[2]
    cache = Path(os.environ["NUMBA_CACHE_DIR"]).resolve()
    assert repo not in cache.parents and cache != repo


def test_kernel_writes_into_a_given_output_buffer():
    luts = random_luts(2)
    raw = random_mosaic(21, 34, seed=5)
    fresh = kernel.fused_demosaic(raw, luts, INDEX, tile=(6, 9))
    buffer = np.full((3, 4, 21, 34), np.nan, dtype=np.float32)
    assert kernel.fused_demosaic(raw, luts, INDEX, tile=(6, 9), out=buffer) is buffer
    np.testing.assert_array_equal(buffer, fresh)  # every pixel written, same values
    with pytest.raises(ValueError, match="C-contiguous float32"):
        kernel.fused_demosaic(raw, luts, INDEX, out=np.empty((3, 4, 21, 33), np.float32))
    with pytest.raises(ValueError, match="tile columns"):
        kernel.fused_demosaic(raw, luts, INDEX, tile=(8, kernel.TILE_COLS + 1))

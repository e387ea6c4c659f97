"""Speed of the blockwise kernel sum (bounded memory) against a full-matrix one and, at tiny N, a Python double loop.

    .venv/bin/pytest benchmarks/bench_mec_mmd.py --benchmark-enable
Each benchmark also checks that its implementation agrees with the blockwise one, so a fast wrong answer fails.
"""

import numpy as np
import pytest

from neurips26.papers.mec_mmd import kernels

H = 1.0


def full_matrix_pair_sum(a: np.ndarray, h: float) -> float:
    """All N x N at once: memory grows as N^2 (8000 units: 512 MB per temporary)."""
    d = ((a[:, None, :] - a[None, :, :]) ** 2).sum(-1)
    k = np.exp(-d / (2 * h * h))
    return float(k.sum() - np.trace(k))


def loop_pair_sum(a: np.ndarray, h: float) -> float:
    total = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[0]):
            if i != j:
                total += float(np.exp(-np.sum((a[i] - a[j]) ** 2) / (2 * h * h)))
    return total


def _sample(n: int) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, 2))


@pytest.mark.parametrize("n", [500, 2000])
def test_blockwise(benchmark, n):
    a = _sample(n)
    assert abs(benchmark(kernels.pair_sum, a, H) - full_matrix_pair_sum(a, H)) < 1e-8 * n * n


@pytest.mark.parametrize("n", [500, 2000])
def test_full_matrix(benchmark, n):
    a = _sample(n)
    assert abs(benchmark(full_matrix_pair_sum, a, H) - kernels.pair_sum(a, H)) < 1e-8 * n * n


@pytest.mark.parametrize("n", [100])
def test_python_loop(benchmark, n):
    a = _sample(n)
    assert abs(benchmark.pedantic(loop_pair_sum, (a, H), rounds=2) - kernels.pair_sum(a, H)) < 1e-8 * n * n

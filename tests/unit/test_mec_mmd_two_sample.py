"""The MEC bootstrap test holds its level on a null with equal devices and has power under a shift; the naive permutation
test on Y breaks across different devices (the reason the MEC test is not a permutation test)."""

import numpy as np

from neurips26.papers.mec_mmd import two_sample
from neurips26.papers.mec_mmd.data import Device


def _group(rng, device, shift=0.0, N=100, n=30):
    x = rng.normal(size=(N, 2)) + shift
    return x, device.measure(x, rng), rng.choice(N, n, replace=False)


def _rejections(device1, device2, shift, tests=50, seed=0):
    rng = np.random.default_rng(seed)
    mec, naive = [], []
    for _ in range(tests):
        (x1, y1, a1), (x2, y2, a2) = _group(rng, device1), _group(rng, device2, shift)
        mec.append(two_sample.mec_bootstrap_test([(x1[a1], y1, a1), (x2[a2], y2, a2)], 1.0, rng, 99) <= 0.05)
        naive.append(two_sample.permutation_test(y1, y2, 1.0, rng, 99) <= 0.05)
    return np.mean(mec), np.mean(naive)


SAME = Device(np.array([1.1, 0.9]), np.array([0.2, 0.0]), 0.5, 0.5, 4.0)
OTHER = Device(np.array([1.0, 1.0]), np.array([-0.4, 0.3]), 0.2, 0.5, 4.0)  # offsets 0.6 and 0.3 apart from SAME


def test_mec_bootstrap_size_near_alpha_with_equal_devices():
    mec, naive = _rejections(SAME, SAME, 0.0)
    assert mec <= 0.16  # 50 tests at alpha 0.05: 9 or more rejections would be far outside binomial noise
    assert naive <= 0.16  # with equal devices the naive permutation test is valid too


def test_mec_bootstrap_has_power_and_naive_breaks_across_devices():
    mec_power, _ = _rejections(SAME, SAME, 1.0, tests=15, seed=1)
    assert mec_power >= 0.7
    mec_size, naive_size = _rejections(SAME, OTHER, 0.0, tests=30, seed=2)
    assert naive_size >= 0.5  # Y laws differ although X laws are equal
    assert mec_size <= 0.2


def test_permutation_p_value_is_uniform_under_exchangeability():
    rng = np.random.default_rng(4)
    p = [two_sample.permutation_test(rng.normal(size=(20, 2)), rng.normal(size=(20, 2)), 1.0, rng, 49) for _ in range(200)]
    assert abs(np.mean(p) - 0.5) < 0.06 and min(p) >= 1 / 50

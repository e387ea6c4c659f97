"""The roofline arithmetic (roofline.roofs): each roof from its measured rate, the lowest one, the kernel's share."""

import pytest

from neurips26.papers.dofp_lut import roofline


def test_each_roof_follows_from_its_rate():
    ops = roofline.ops_per_pixel()
    # 52 GB/s over 52 B/pixel = 1000 MP/s; ops * 500 MP/s flop/s = 500 MP/s; gathers: A 4 per pixel at 4e9/s, P and
    # H 1 per pixel at 1e9/s each: 1 / (1e-9 + 1e-9 + 1e-9) per second = 333.3 MP/s, the lowest
    roof = roofline.roofs(52.0, ops * 500e6, {"A": 4e9, "P": 1e9, "H": 1e9})
    assert roof["memory_roof_mp_per_s"] == pytest.approx(1000.0)
    assert roof["compute_roof_mp_per_s"] == pytest.approx(500.0)
    assert roof["gather_roof_mp_per_s"] == pytest.approx(1000.0 / 3)
    assert roof["lowest_roof"] == "gather" and roof["lowest_roof_mp_per_s"] == pytest.approx(1000.0 / 3)
    assert roofline.share(100.0, roof) == pytest.approx(0.3)


def test_the_lowest_roof_moves_with_the_rates():
    roof = roofline.roofs(5.2, 1e15, {"A": 1e12, "P": 1e12, "H": 1e12})
    assert roof["lowest_roof"] == "memory" and roof["lowest_roof_mp_per_s"] == pytest.approx(100.0)
    roof = roofline.roofs(1e6, 340.0 * 2e6, {"A": 1e12, "P": 1e12, "H": 1e12}, ops=340.0)
    assert roof["lowest_roof"] == "compute" and roof["compute_roof_mp_per_s"] == pytest.approx(2.0)


def test_the_counted_operations_cover_every_part_of_the_kernel():
    assert roofline.ops_per_pixel() == sum(roofline.OPS_PER_PIXEL.values()) > 300
    assert roofline.GATHERS == {"A": 4, "P": 1, "H": 1}

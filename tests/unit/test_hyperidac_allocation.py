"""The DCI allocation: Sinkhorn keeps both marginals, the integer rounding keeps them exactly, skew grows with gamma."""

import numpy as np
import pytest

from neurips26.papers.hyperidac.allocation import dci_allocation, kernel, round_plan, sinkhorn


@pytest.mark.parametrize("gamma", [0.0, 0.5, 1.0, 2.0, 3.0])
def test_integer_allocation_has_exact_marginals(gamma):
    counts = dci_allocation(4000, 10, 4, gamma)
    assert counts.dtype.kind == "i" and (counts >= 0).all()
    assert (counts.sum(1) == 400).all()
    assert (counts.sum(0) == 1000).all()


def test_sinkhorn_matches_unequal_marginals_and_keeps_the_kernels_cross_ratios():
    rng = np.random.default_rng(0)
    k = rng.uniform(0.1, 2.0, (6, 3))
    rows, cols = rng.uniform(1, 5, 6), rng.uniform(1, 5, 3)
    cols *= rows.sum() / cols.sum()
    plan = sinkhorn(k, rows, cols)
    np.testing.assert_allclose(plan.sum(1), rows, rtol=1e-8)
    np.testing.assert_allclose(plan.sum(0), cols, rtol=1e-8)
    # a diagonal scaling leaves every 2x2 cross ratio of the kernel unchanged (the projection's defining property)
    cross = lambda m: m[0, 0] * m[1, 1] / (m[0, 1] * m[1, 0])  # noqa: E731
    assert cross(plan) == pytest.approx(cross(k), rel=1e-8)


def test_rounding_stays_within_one_sample_of_the_real_plan_on_random_plans():
    rng = np.random.default_rng(1)
    for _ in range(50):
        rows = rng.integers(5, 60, 7)
        cols = rng.multinomial(rows.sum(), np.ones(5) / 5)
        plan = sinkhorn(rng.uniform(0.05, 3, (7, 5)), rows, np.maximum(cols, 1e-9))
        counts = round_plan(plan, rows, cols)
        assert (counts.sum(1) == rows).all() and (counts.sum(0) == cols).all()
        assert np.abs(counts - plan).max() < 2.0


def test_balanced_regime_is_the_product_and_skew_grows_with_gamma():
    assert (dci_allocation(4000, 10, 4, 0.0) == 100).all()
    ratios = [c.max() / max(c.min(), 1) for c in (dci_allocation(4000, 10, 4, g) for g in (0.0, 1.0, 2.0))]
    assert ratios[0] == 1 and ratios[0] < ratios[1] < ratios[2]
    # the mass of domain d sits on the classes near d K / D (the kernel's peak)
    counts = dci_allocation(4000, 10, 4, 2.0)
    assert counts[:, 0].argmax() == 0 and counts[:, 2].argmax() == 5
    assert kernel(10, 4, 0.0).std() == 0


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="multiple"):
        dci_allocation(4001, 10, 4, 1.0)
    with pytest.raises(ValueError, match="differ in total"):
        sinkhorn(np.ones((2, 2)), [1, 1], [1, 2])


@pytest.mark.parametrize("gamma", [0.0, 1.0, 3.0])
def test_minimum_cell_size_keeps_exact_marginals_and_the_kernels_cross_ratios_above_the_floor(gamma):
    counts = dci_allocation(4000, 10, 4, gamma, min_cell=20)
    assert (counts.sum(1) == 400).all() and (counts.sum(0) == 1000).all()
    assert counts.min() >= 20
    # above the floor: the Sinkhorn plan of the kernel onto the reduced marginals (400 - 4 * 20, 1000 - 10 * 20)
    plan = sinkhorn(kernel(10, 4, gamma), np.full(10, 320), np.full(4, 800))
    assert np.abs(counts - 20 - plan).max() < 2.0


def test_the_floor_lifts_the_rarest_cells_and_keeps_the_severe_skew():
    plain, floored = dci_allocation(4000, 10, 4, 2.0), dci_allocation(4000, 10, 4, 3.0, min_cell=20)
    assert plain.min() == 6 and floored.min() == 21 and floored.max() == plain.max() == 310
    assert (dci_allocation(400, 10, 4, 3.0, min_cell=10) == 10).all()   # floor = the whole pool: balanced
    with pytest.raises(ValueError, match="min_cell"):
        dci_allocation(400, 10, 4, 1.0, min_cell=11)

"""MEC-MMD^2 against the oracle and the SRSWOR variance formula against enumeration of every audit."""

from itertools import combinations

import numpy as np
import pytest

from neurips26.papers.mec_mmd import baselines, method, variance
from neurips26.papers.mec_mmd.models import SampleModel


def _data(N, seed=0, M=6):
    """X, and a distorted, heteroscedastic, clipped Y; a small model sample Z."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, 2))
    y = np.clip(1.3 * x + 0.4 + 0.6 * (0.5 + np.abs(x)) * rng.normal(size=x.shape), -3, 3)
    return x, y, SampleModel(rng.normal(0.5, 1.0, size=(M, 2)), 1.1)


def _mec(x, y, idx, model, w=1.0):
    return method.mec_mmd2(x[idx], y, np.asarray(idx), model, model.h, w)


def test_full_audit_equals_oracle():
    x, y, model = _data(40)
    everything = np.arange(40)
    for w in (1.0, 0.4):
        assert abs(_mec(x, y, everything, model, w).estimate - baselines.oracle(x, model, model.h)) < 1e-12
    assert abs(_mec(x, y, everything, model).plugin_variance) < 1e-12  # a(N) - a(N)


def _enumerate(x, y, model, n, w):
    return [_mec(x, y, list(a), model, w) for a in combinations(range(x.shape[0]), n)]


@pytest.mark.parametrize("w", [1.0, 0.3])
def test_exact_unbiasedness_and_variance_by_enumeration(w):
    N, n = 7, 3
    x, y, model = _data(N, seed=3)
    values = np.array([r.estimate for r in _enumerate(x, y, model, n, w)])
    assert abs(values.mean() - baselines.oracle(x, model, model.h)) < 1e-12
    mus = method.exact_moments(x, y, model.mean_kernel(x), model.mean_kernel(y), model.h)
    exact = variance.variance_at(w, variance.quadratic_in_w(n, N, *mus))
    assert abs(values.var() - exact) < 1e-12 * max(1.0, values.var())
    assert values.var() > 1e-6  # the check is not vacuous


def test_plugin_variance_is_exactly_unbiased_by_enumeration():
    N, n = 8, 4
    x, y, model = _data(N, seed=5)
    results = _enumerate(x, y, model, n, 1.0)
    mus = method.exact_moments(x, y, model.mean_kernel(x), model.mean_kernel(y), model.h)
    exact = variance.variance_at(1.0, variance.quadratic_in_w(n, N, *mus))
    assert abs(np.mean([r.plugin_variance for r in results]) - exact) < 1e-12
    assert abs(np.var([r.estimate for r in results]) - exact) < 1e-12


def test_moments_match_loops_over_tuples():
    """The O(n^2) row-sum identities against explicit sums over ordered distinct triples and quadruples."""
    rng = np.random.default_rng(2)
    m = 6
    pa, pb = rng.normal(size=(m, m)), rng.normal(size=(m, m))
    pa, pb = pa + pa.T, pb + pb.T
    np.fill_diagonal(pa, 0), np.fill_diagonal(pb, 0)
    idx = range(m)
    pairs = [(i, j) for i in idx for j in idx if i != j]
    trip = [(i, j, k) for i in idx for j in idx for k in idx if len({i, j, k}) == 3]
    quad = [(i, j, k, l) for i in idx for j in idx for k in idx for l in idx if len({i, j, k, l}) == 4]  # noqa: E741
    want = (np.mean([pa[i, j] * pb[i, j] for i, j in pairs]), np.mean([pa[i, j] * pb[i, k] for i, j, k in trip]),
            np.mean([pa[i, j] * pb[k, l] for i, j, k, l in quad]))  # noqa: E741
    np.testing.assert_allclose(variance.moments(pa, pb), want, rtol=1e-12, atol=1e-14)


def test_monte_carlo_unbiasedness_and_plugin_variance():
    """2000 audits of n=20 from N=200: z of the mean error < 4; mean plug-in variance within 10% of exact and of MC."""
    N, n, reps = 200, 20, 2000
    x, y, model = _data(N, seed=7, M=30)
    noisy, fx = method.noisy_parts(y, model, model.h), model.mean_kernel(x)
    oracle = baselines.oracle(x, model, model.h)
    rng = np.random.default_rng(11)
    est, plug = np.empty(reps), np.empty(reps)
    for r in range(reps):
        idx = rng.choice(N, n, replace=False)
        res = method.mec_with_variance(noisy, method.audit_parts(x[idx], y, idx, model, model.h))
        est[r], plug[r] = res.estimate, res.plugin_variance
    z = (est.mean() - oracle) / (est.std(ddof=1) / np.sqrt(reps))
    assert abs(z) < 4
    mus = method.exact_moments(x, y, fx, noisy.fy, model.h)
    exact = variance.variance_at(1.0, variance.quadratic_in_w(n, N, *mus))
    assert abs(plug.mean() / exact - 1) < 0.1
    assert abs(est.var(ddof=1) / exact - 1) < 0.1  # MC variance of a variance: sd ~ sqrt(2/2000) ~ 3% (plus kurtosis)


def test_optimal_weight_minimises_the_quadratic():
    v = (2.0, 0.9, 1.5)
    w = variance.optimal_weight(v)
    assert abs(w - 0.6) < 1e-12
    assert all(variance.variance_at(w, v) <= variance.variance_at(u, v) for u in np.linspace(0, 1, 11))

"""sparse_eos measures: participation ratio on known spectra; the stability bound's ingredients on closed-form cases."""

import numpy as np
import pytest
import torch

from neurips26.papers.sparse_eos import measures
from neurips26.papers.sparse_eos.method import mse, train
from neurips26.papers.sparse_eos.models import PatchNet, windows_1d


def _with_covariance(eigenvalues, n=4000, seed=0) -> np.ndarray:
    """Points whose sample covariance has exactly these eigenvalues (whitened Gaussian, rotated)."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, len(eigenvalues)))
    z -= z.mean(axis=0)
    z = z @ np.linalg.inv(np.linalg.cholesky(np.cov(z, rowvar=False))).T       # sample covariance = I exactly
    q, _ = np.linalg.qr(rng.standard_normal((len(eigenvalues), len(eigenvalues))))
    return (z * np.sqrt(eigenvalues)) @ q.T


@pytest.mark.parametrize("eigenvalues", [np.ones(9), [1, 1, 1, 0, 0, 0, 0], [4.0, 1.0, 0.25], 2.0 ** -np.arange(16)])
def test_participation_ratio_matches_the_spectrum(eigenvalues):
    lam = np.asarray(eigenvalues, float)
    expected = lam.sum() ** 2 / (lam**2).sum()                # 9, 3, 1.62..., ~3 for the geometric spectrum
    assert measures.participation_ratio(_with_covariance(lam)) == pytest.approx(expected, rel=1e-8)
    spectrum = measures.pca_spectrum(_with_covariance(lam))
    assert spectrum == pytest.approx(np.sort(lam)[::-1] / lam.sum(), abs=1e-10)


def test_participation_ratio_of_isotropic_gaussian_is_near_r():
    x = np.random.default_rng(1).standard_normal((20000, 16))
    assert measures.participation_ratio(x) == pytest.approx(16, rel=0.02)


def _uniform_line(n=200001) -> np.ndarray:
    return np.linspace(-1.0, 1.0, n)[:, None]


@pytest.mark.parametrize("t", [-0.5, 0.0, 0.3, 0.8])
def test_g_tilde_closed_form_on_uniform_interval(t):
    """X ~ U[-1, 1], u = 1: P = (1-t)/2, E[X - t | X > t] = (1-t)/2, E[X | X > t] = (1+t)/2."""
    expected = ((1 - t) / 2) ** 3 * np.sqrt(1 + ((1 + t) / 2) ** 2)
    got = measures.g_tilde(_uniform_line(), np.array([[1.0]]), np.array([t]))[0]
    assert got == pytest.approx(expected, rel=1e-4)
    # g takes the smaller side: the half-space {x < t} for u = -1, threshold -t
    other = ((1 + t) / 2) ** 3 * np.sqrt(1 + ((1 - t) / 2) ** 2)
    assert measures.g_weight(_uniform_line(), np.array([[1.0]]), np.array([t]))[0] == pytest.approx(
        min(expected, other), rel=1e-4)


def test_coverage_curve_closed_form_in_one_dimension():
    """1-D U[-1, 1]: a half-space holding a fraction q has g~ = q^3 sqrt(1 + (1 - q)^2) whichever side it takes."""
    q = np.array([0.01, 0.1, 0.5])
    got = measures.coverage_curve(_uniform_line(), q, 16, np.random.default_rng(0))
    assert got == pytest.approx(q**3 * np.sqrt(1 + (1 - q) ** 2), rel=2e-3)


def _gauss_newton_top(net, x) -> float:
    params = list(net.parameters())
    rows = [torch.cat([g.reshape(-1) for g in torch.autograd.grad(net(x[i:i + 1]).sum(), params)])
            for i in range(len(x))]
    jac = torch.stack(rows)
    return float(torch.linalg.eigvalsh(jac.T @ jac / len(x)).max())


@pytest.mark.parametrize("trial", range(12))
def test_stability_lower_bound_on_random_networks(trial):
    """The bound's key ingredient: the Gauss-Newton part of the Hessian has lambda_max >= 1 + 2 WPN, for any
    parameters (fc on points in the unit ball, lc on its patches); brute force with the dense Jacobian."""
    rng = np.random.default_rng(trial)
    d, n, kind = (3, 25, "fc") if trial % 2 == 0 else (6, 20, "lc")
    x = rng.standard_normal((n, d))
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1.0)
    index = np.arange(d)[None] if kind == "fc" else windows_1d(d, 2)
    net = PatchNet(kind, index, 3, generator=torch.Generator().manual_seed(trial), dtype=torch.float64)
    with torch.no_grad():
        net.b.copy_(torch.as_tensor(rng.normal(0, 0.5, net.b.shape)))
        net.v.copy_(torch.as_tensor(rng.normal(0, rng.uniform(0.5, 10), net.v.shape)))
        net.w.mul_(float(rng.uniform(0.5, 5)))
    from neurips26.papers.sparse_eos.experiments import patch_sets

    w, b, v, pos = net.neurons()
    g, path, _ = measures.neuron_weights(w, b, v, pos, patch_sets(net, x))
    assert _gauss_newton_top(net, torch.as_tensor(x)) >= 1.0 + 2.0 * float((g * path).sum()) - 1e-9


def test_lanczos_sharpness_matches_dense_hessian_after_gd():
    """The sharpness reported by train() (Lanczos on Hessian-vector products) is the dense Hessian's top eigenvalue."""
    rng = np.random.default_rng(0)
    x = torch.as_tensor(rng.standard_normal((30, 4)), dtype=torch.float64)
    y = torch.as_tensor(rng.standard_normal(30), dtype=torch.float64)
    net = PatchNet("lc", windows_1d(4, 2), 2, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    rule = type("Rule", (), dict(max_steps=200, check_every=10, window=50, rel_tol=1e-3, loss_floor=1e-8,
                                 min_steps=50, lanczos_iters=40))
    fit = train(net, x, y, 0.2, rule, generator=torch.Generator().manual_seed(1))
    params = list(net.parameters())
    flat = torch.cat([p.detach().reshape(-1) for p in params])

    def loss_of(vec):
        out, start = [], 0
        for p in params:
            out.append(vec[start:start + p.numel()].view_as(p))
            start += p.numel()
        w, b, v, beta = out
        z = torch.bmm(x[:, net.index].transpose(0, 1), w.transpose(1, 2)).transpose(0, 1) - b
        return 0.5 * (((torch.relu(z) * v).sum(dim=(1, 2)) + beta - y) ** 2).mean()

    dense = torch.autograd.functional.hessian(loss_of, flat)
    assert fit.sharpness == pytest.approx(float(torch.linalg.eigvalsh(dense).max()), rel=1e-6)
    assert fit.train_loss == pytest.approx(mse(net, x, y).item())


def test_budget_and_silent_neurons():
    assert measures.stability_budget(0.5, 0.0, 1.0) == pytest.approx(1.5)
    assert measures.stability_budget(1.0, 0.02, 1.0) == pytest.approx(0.5 + 2 * 0.2)
    path = np.array([10.0, 9.0, 0.1, 0.2, 8.0])
    active = np.array([0.01, 0.5, 0.01, 0.02, 0.0])   # neuron 4 is dead, not silent-but-alive
    assert measures.silent_high_norm(path, active, max_active=0.05, norm_quantile=0.5) == 1


def test_least_squares_control_matches_its_closed_form():
    """The positive control of claims 1-3: least squares averaged over label-noise draws against the exact
    expectation given X (well-specified linear target): E train = s^2 (n - p)/n and
    E test = s^2 (1 + mean_t a_t' (A'A)^-1 a_t), p = d + 1 features with the intercept."""
    from neurips26.papers.sparse_eos.experiments import least_squares_gap

    rng = np.random.default_rng(0)
    n, n_test, d, s = 60, 400, 7, 0.5
    x = rng.standard_normal((n + n_test, d))
    clean = x @ rng.standard_normal(d)
    train, test = least_squares_gap(x, clean, s, n, 4000, np.random.default_rng(1))
    a = np.hstack([x, np.ones((n + n_test, 1))])
    inv = np.linalg.inv(a[:n].T @ a[:n])
    lev = np.einsum("ij,jk,ik->i", a[n:], inv, a[n:])
    assert train == pytest.approx(s**2 * (n - d - 1) / n, rel=0.02)
    assert test == pytest.approx(s**2 * (1 + lev.mean()), rel=0.02)


def test_ramp_control_patches_have_rank_two():
    """The positive control of claim 5: ramp images give rank-2 patch covariances, so PR <= 2 at every patch size."""
    from neurips26.papers.sparse_eos.data import ramp_images, sample_patches

    rng = np.random.default_rng(3)
    images = ramp_images(rng, 50, 12)
    for r in (3, 6):
        p = sample_patches(images, 12, r, 2000, rng)
        assert np.linalg.matrix_rank(np.cov(p, rowvar=False), tol=1e-8) == 2
        assert measures.participation_ratio(p) <= 2.0 + 1e-9

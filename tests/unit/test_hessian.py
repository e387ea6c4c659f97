"""neurips26.common.models.hessian vs independent references: a quadratic with a known spectrum, a cubic with a closed-form
sharpness gradient, and dense eigendecomposition / finite differences of the full Hessian of small networks."""

from __future__ import annotations

import torch

from neurips26.common.models import hessian


def _quadratic(spectrum, seed=0):
    g = torch.Generator().manual_seed(seed)
    q, _ = torch.linalg.qr(torch.randn(len(spectrum), len(spectrum), generator=g, dtype=torch.float64))
    a = q @ torch.diag(torch.tensor(spectrum, dtype=torch.float64)) @ q.T
    theta = torch.randn(len(spectrum), generator=g, dtype=torch.float64, requires_grad=True)
    return a, theta, (lambda: 0.5 * theta @ a @ theta)


def test_lanczos_recovers_known_spectrum_of_quadratic():
    spectrum = [10.0, 7.0, 3.0, 1.0, 0.5, -2.0] + [0.1] * 24
    a, theta, loss = _quadratic(spectrum)
    values, vectors = hessian.top_eigenpairs(loss, [theta], k=3, iters=30, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(values, torch.tensor([10.0, 7.0, 3.0], dtype=torch.float64), rtol=1e-8, atol=1e-8)
    # eigenvectors: A v = lambda v
    torch.testing.assert_close(a @ vectors, vectors * values, rtol=1e-6, atol=1e-6)


def test_lanczos_top_is_algebraic_not_magnitude():
    a, theta, loss = _quadratic([4.0, 1.0, -9.0, 0.2])
    values, _ = hessian.top_eigenpairs(loss, [theta], k=1, iters=4, generator=torch.Generator().manual_seed(0))
    assert abs(float(values[0]) - 4.0) < 1e-8


def test_power_iteration_matches_top_eigenvalue():
    a, theta, loss = _quadratic([5.0, 2.0, 1.0, 0.5, 0.1])
    value, vector = hessian.top_eigenpairs(loss, [theta], method="power", iters=500,
                                           generator=torch.Generator().manual_seed(0))
    assert abs(float(value[0]) - 5.0) < 1e-4
    assert abs(float((a @ vector[:, 0]) @ vector[:, 0]) - 5.0) < 1e-4


def test_sharpness_gradient_of_cubic_closed_form():
    # f(theta) = sum c_i theta_i^3 / 6 -> H = diag(c_i theta_i), v^T H v = sum c_i theta_i v_i^2, gradient c_i v_i^2
    c = torch.tensor([1.0, -2.0, 3.0, 0.5], dtype=torch.float64)
    theta = torch.tensor([0.3, 1.0, -0.7, 2.0], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([0.5, 0.5, -0.5, 0.5], dtype=torch.float64)
    grad = hessian.sharpness_gradient(lambda: (c * theta ** 3).sum() / 6, [theta], v)
    torch.testing.assert_close(grad, c * v ** 2)


def _tiny_net(seed=0):
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3)).double()
    x = torch.randn(20, 5, dtype=torch.float64)
    y = torch.randn(20, 3, dtype=torch.float64)
    params = list(net.parameters())
    shapes = [p.shape for p in params]

    def loss_of(flat):
        parts, start = [], 0
        for s in shapes:
            n = int(torch.tensor(s).prod())
            parts.append(flat[start:start + n].view(s))
            start += n
        out = torch.func.functional_call(net, dict(zip([n for n, _ in net.named_parameters()], parts)), (x,))
        return 0.5 * ((out - y) ** 2).sum(1).mean()

    return net, params, (lambda: 0.5 * ((net(x) - y) ** 2).sum(1).mean()), loss_of


def test_lanczos_matches_dense_hessian_of_small_network():
    net, params, loss, loss_of = _tiny_net()
    flat = hessian.flatten([p.detach() for p in params])
    dense = torch.autograd.functional.hessian(loss_of, flat)
    expected = torch.linalg.eigvalsh(dense).flip(0)[:3]
    values, vectors = hessian.top_eigenpairs(loss, params, k=3, iters=flat.numel(),
                                             generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(values, expected, rtol=1e-6, atol=1e-8)
    hvp = hessian.HessianVectorProduct(loss, params)
    v = torch.randn(flat.numel(), dtype=torch.float64)
    torch.testing.assert_close(hvp(v), dense @ v)


def test_sharpness_gradient_matches_finite_difference_of_dense_hessian():
    net, params, loss, loss_of = _tiny_net(seed=3)
    flat = hessian.flatten([p.detach() for p in params])
    v = torch.randn(flat.numel(), dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    v = v / v.norm()
    grad = hessian.sharpness_gradient(loss, params, v)
    direction = torch.randn(flat.numel(), dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    eps = 1e-4
    quad = [v @ torch.autograd.functional.hessian(loss_of, flat + s * eps * direction) @ v for s in (1, -1)]
    finite = (quad[0] - quad[1]) / (2 * eps)
    assert abs(float(grad @ direction) - float(finite)) < 1e-6 * max(1.0, abs(float(finite)))

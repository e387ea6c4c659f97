"""Per-checkpoint measurements: sharpness (top Hessian eigenvalue of the train loss, Lanczos on HVPs), the alignment
cos(theta, grad S) with grad S = grad (v^T H v), and the empirical NTK on a fixed probe set with its kernel velocity."""

from __future__ import annotations

import torch
from torch import nn
from torch.func import functional_call, grad, vmap

from neurips26.common.models import hessian


def sharpness_and_alignment(loss_fn, params: list[torch.Tensor], iters: int, v0: torch.Tensor | None,
                            generator: torch.Generator) -> tuple[float, float, torch.Tensor]:
    """(S, cos(theta, grad S), top eigenvector). v0 warm-starts Lanczos from the previous checkpoint's eigenvector."""
    values, vectors = hessian.top_eigenpairs(loss_fn, params, k=1, iters=iters, v0=v0, generator=generator)
    top = vectors[:, 0]
    grad_s = hessian.sharpness_gradient(loss_fn, params, top)
    theta = hessian.flatten([p.detach() for p in params])
    cos = torch.dot(theta, grad_s) / (theta.norm() * grad_s.norm()).clamp_min(1e-30)
    return float(values[0]), float(cos), top


def ntk(model: torch.nn.Module, probe: torch.Tensor) -> torch.Tensor:
    """The empirical NTK summed over outputs, K_ij = sum_c <d f_c(x_i), d f_c(x_j)> (probe x probe), exactly.

    One backward per output class; per layer, hooks capture the layer inputs A and the output gradients D of every
    probe example. Linear layers factorise, K += (A A^T) o (D D^T) + D D^T (weight, bias), so no per-example gradient of
    a large weight matrix is ever formed; Conv2d layers form per-example gradients from unfolded inputs (they are small).
    `ntk_reference` (per-example gradients by torch.func) is the slow independent check used in the tests.
    """
    layers = [m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d))]
    other = {id(p) for p in model.parameters()} - {id(p) for m in layers for p in m.parameters()}
    if other:
        raise ValueError("ntk: the model has parameters outside Linear/Conv2d layers; use ntk_reference")
    captured: dict[nn.Module, tuple[torch.Tensor, torch.Tensor]] = {}

    def hook(module, args, out):
        captured[module] = (args[0].detach(), out)

    handles = [m.register_forward_hook(hook) for m in layers]
    kernel = torch.zeros(len(probe), len(probe), dtype=probe.dtype, device=probe.device)
    try:
        out = model(probe)
        for c in range(out.shape[1]):
            grads = torch.autograd.grad(out[:, c].sum(), [captured[m][1] for m in layers], retain_graph=True)
            for m, d in zip(layers, grads):
                kernel += _layer_kernel(m, captured[m][0], d)
    finally:
        for h in handles:
            h.remove()
    return kernel


def _layer_kernel(m: nn.Module, a: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    n = len(a)
    if isinstance(m, nn.Linear):
        dd = d @ d.T
        return (a @ a.T) * dd + (dd if m.bias is not None else 0.0)
    cols = torch.nn.functional.unfold(a, m.kernel_size, dilation=m.dilation, padding=m.padding, stride=m.stride)
    d = d.reshape(n, d.shape[1], -1)
    per_example = torch.einsum("nol,nil->noi", d, cols).reshape(n, -1)
    if m.bias is not None:
        per_example = torch.cat([per_example, d.sum(-1)], 1)
    return per_example @ per_example.T


def ntk_reference(model: torch.nn.Module, probe: torch.Tensor) -> torch.Tensor:
    """The same kernel from explicit per-example gradients (torch.func.vmap(grad)), one class at a time."""
    names = [n for n, _ in model.named_parameters()]
    params = {n: p.detach() for n, p in model.named_parameters()}
    kernel = torch.zeros(len(probe), len(probe), dtype=probe.dtype, device=probe.device)
    for c in range(model(probe[:1]).shape[1]):
        def f_c(p, x, c=c):
            return functional_call(model, p, (x.unsqueeze(0),))[0, c]

        jac = vmap(grad(f_c), in_dims=(None, 0))(params, probe)
        flat = torch.cat([jac[n].reshape(len(probe), -1) for n in names], 1)
        kernel += flat @ flat.T
    return kernel


def kernel_distance(k1: torch.Tensor, k2: torch.Tensor) -> float:
    """1 - <K1, K2>_F / (|K1| |K2|) (Fort et al. 2020): 0 for kernels equal up to scale."""
    return float(1.0 - (k1 * k2).sum() / (k1.norm() * k2.norm()).clamp_min(1e-30))

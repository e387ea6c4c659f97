"""Hessian spectra without dense Hessians: Hessian-vector products by double backward, the top eigenpairs by Lanczos
(power iteration as a fallback), and the gradient of the sharpness, grad_theta (v^T H(theta) v) for a fixed unit v.

Everything works on flat vectors over a list of parameter tensors, on whatever device the parameters live (CPU or CUDA).

    hvp = HessianVectorProduct(loss_fn, params)       # loss_fn() -> scalar loss with a graph to params
    values, vectors = lanczos(hvp, hvp.dim, k=2, iters=20, v0=previous_top_vector)
    grad_s = sharpness_gradient(loss_fn, params, vectors[:, 0])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

Tensor = torch.Tensor


def flatten(tensors: Sequence[Tensor]) -> Tensor:
    return torch.cat([t.reshape(-1) for t in tensors])


def unflatten(vector: Tensor, like: Sequence[Tensor]) -> list[Tensor]:
    """Split a flat vector into tensors shaped like `like`."""
    out, start = [], 0
    for t in like:
        out.append(vector[start:start + t.numel()].view_as(t))
        start += t.numel()
    if start != vector.numel():
        raise ValueError(f"vector has {vector.numel()} entries, the parameters {start}")
    return out


class HessianVectorProduct:
    """v -> H v for H the Hessian of loss_fn() at the current parameters.

    The gradient graph is built once (create_graph=True) and reused for every product, so one product costs one extra
    backward pass. Build a new operator after the parameters change.
    """

    def __init__(self, loss_fn: Callable[[], Tensor], params: Sequence[Tensor]):
        self.params = list(params)
        self.dim = sum(p.numel() for p in self.params)
        loss = loss_fn()
        self.grads = torch.autograd.grad(loss, self.params, create_graph=True)
        self.calls = 0

    def __call__(self, vector: Tensor) -> Tensor:
        self.calls += 1
        dot = sum((g * v).sum() for g, v in zip(self.grads, unflatten(vector, self.params)))
        return flatten(torch.autograd.grad(dot, self.params, retain_graph=True)).detach()


def _start_vector(dim: int, v0: Tensor | None, generator: torch.Generator | None, like: Tensor) -> Tensor:
    if v0 is None:
        v0 = torch.randn(dim, generator=generator, dtype=torch.float64).to(like.device, like.dtype)
    v0 = v0.detach().to(like.device, like.dtype)
    norm = torch.linalg.vector_norm(v0)
    if norm == 0:
        raise ValueError("Lanczos start vector is zero")
    return v0 / norm


def lanczos(matvec: Callable[[Tensor], Tensor], dim: int, k: int = 1, iters: int = 20, v0: Tensor | None = None,
            generator: torch.Generator | None = None, like: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """The k algebraically largest eigenvalues (descending) and their Ritz vectors (dim x k) of a symmetric operator.

    Lanczos with full re-orthogonalisation (twice, for numerical safety), `iters` products at most; stops early on an
    invariant subspace. `like` fixes device and dtype (default float32 on CPU).
    """
    like = torch.zeros((), dtype=torch.float32) if like is None else like
    iters = max(min(iters, dim), k)
    basis = torch.zeros(iters, dim, dtype=like.dtype, device=like.device)
    alphas, betas = [], []
    q = _start_vector(dim, v0, generator, like)
    for j in range(iters):
        basis[j] = q
        w = matvec(q)
        alpha = torch.dot(q, w)
        alphas.append(alpha)
        w = w - alpha * q - (betas[-1] * basis[j - 1] if j > 0 else 0.0)
        for _ in range(2):
            w = w - basis[:j + 1].T @ (basis[:j + 1] @ w)
        beta = torch.linalg.vector_norm(w)
        if j == iters - 1 or beta <= 1e-10 * max(1.0, abs(float(alpha))):
            break
        betas.append(beta)
        q = w / beta
    m = len(alphas)
    tri = torch.diag(torch.stack(alphas).double())
    if m > 1:
        off = torch.stack(betas[:m - 1]).double()
        tri = tri + torch.diag(off, 1) + torch.diag(off, -1)
    values, vectors = torch.linalg.eigh(tri)
    order = torch.argsort(values, descending=True)[:k]
    ritz = basis[:m].T @ vectors[:, order].to(like.dtype)
    return values[order].to(like.dtype), ritz


def power_iteration(matvec: Callable[[Tensor], Tensor], dim: int, iters: int = 100, tol: float = 1e-6,
                    v0: Tensor | None = None, generator: torch.Generator | None = None,
                    like: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """The eigenvalue of largest MAGNITUDE and its eigenvector (the fallback; equals the top one when H is PSD-dominated)."""
    like = torch.zeros((), dtype=torch.float32) if like is None else like
    v = _start_vector(dim, v0, generator, like)
    value = torch.tensor(0.0, dtype=like.dtype, device=like.device)
    for _ in range(iters):
        w = matvec(v)
        new_value = torch.dot(v, w)
        norm = torch.linalg.vector_norm(w)
        if norm == 0:
            return new_value, v
        v = w / norm
        if abs(float(new_value - value)) <= tol * max(1.0, abs(float(new_value))):
            value = new_value
            break
        value = new_value
    return value, v


def top_eigenpairs(loss_fn: Callable[[], Tensor], params: Sequence[Tensor], k: int = 1, iters: int = 20,
                   method: str = "lanczos", v0: Tensor | None = None,
                   generator: torch.Generator | None = None) -> tuple[Tensor, Tensor]:
    """Top-k Hessian eigenvalues (descending) and eigenvectors (dim x k) of loss_fn at params."""
    hvp = HessianVectorProduct(loss_fn, params)
    like = params[0].detach()
    if method == "lanczos":
        return lanczos(hvp, hvp.dim, k=k, iters=iters, v0=v0, generator=generator, like=like)
    if method == "power":
        if k != 1:
            raise ValueError("power iteration finds one eigenpair; use method='lanczos' for k > 1")
        value, vector = power_iteration(hvp, hvp.dim, iters=iters, v0=v0, generator=generator, like=like)
        return value.reshape(1), vector.reshape(-1, 1)
    raise ValueError(f"unknown eigen method {method!r}; expected lanczos or power")


def sharpness_gradient(loss_fn: Callable[[], Tensor], params: Sequence[Tensor], vector: Tensor) -> Tensor:
    """grad_theta of v^T H(theta) v for a fixed vector v (the direction in which the sharpness grows), flat."""
    params = list(params)
    loss = loss_fn()
    grads = torch.autograd.grad(loss, params, create_graph=True)
    parts = unflatten(vector.detach(), params)
    dot = sum((g * v).sum() for g, v in zip(grads, parts))
    hv = torch.autograd.grad(dot, params, create_graph=True)
    quad = sum((h * v).sum() for h, v in zip(hv, parts))
    return flatten(torch.autograd.grad(quad, params)).detach()

"""Two-layer ReLU networks on patches: fully connected (one patch = the whole input), locally connected (every patch
position has its own neurons) and convolutional (neurons shared over positions).

A patch layout is an integer array `index` of shape (J, r): patch j of input x is x[index[j]] (contiguous 1-D windows,
r x r image windows, or random non-contiguous pixel sets all fit). With z_jk = w_jk . P_j x - b_jk,

    fully connected:    f(x) = sum_k v_k relu(w_k . x - b_k) + beta                     (J = 1, r = d)
    locally connected:  f(x) = sum_j sum_k v_jk relu(w_jk . P_j x - b_jk) + beta
    convolutional:      f(x) = sum_k v_k mean_j relu(w_k . P_j x - b_k) + beta          (w_jk = w_k shared)

The conv net average-pools over positions (global average pooling): with a plain sum, coherent patches of natural
images add up over J positions and the initial sharpness is ~J times larger (GD at eta = 0.5 diverged in 2 steps).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


def windows_1d(d: int, r: int, stride: int | None = None) -> np.ndarray:
    """Contiguous windows of length r over 0..d-1 (non-overlapping by default)."""
    stride = stride or r
    if not 1 <= r <= d:
        raise ValueError(f"receptive field r={r} must lie in [1, d={d}]")
    return np.stack([np.arange(s, s + r) for s in range(0, d - r + 1, stride)])


def windows_2d(side: int, r: int, stride: int = 1) -> np.ndarray:
    """r x r windows of a side x side image flattened row-major."""
    if not 1 <= r <= side:
        raise ValueError(f"patch side r={r} must lie in [1, side={side}]")
    grid = np.arange(side * side).reshape(side, side)
    return np.stack([grid[i:i + r, j:j + r].ravel() for i in range(0, side - r + 1, stride)
                     for j in range(0, side - r + 1, stride)])


def random_patches(d: int, r: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` random non-contiguous patches of r distinct coordinates each."""
    return np.stack([rng.choice(d, size=r, replace=False) for _ in range(count)])


def d_over_r(index: np.ndarray) -> float:
    """Input dimension over patch size: a unit-norm input's patch has squared norm ~ r/d, so weights start larger by
    sqrt(d/r) to give pre-activations of the same scale for every r (1 for fc)."""
    index = np.asarray(index)
    return (int(index.max()) + 1) / index.shape[1]


class PatchNet(nn.Module):
    """kind in {fc, lc, conv}; `width` neurons per patch position (lc) or in total (fc, conv)."""

    def __init__(self, kind: str, index: np.ndarray, width: int, init_scale: float = 0.5,
                 generator: torch.Generator | None = None, dtype=torch.float32):
        super().__init__()
        if kind not in ("fc", "lc", "conv"):
            raise ValueError(f"unknown architecture {kind!r}; expected fc, lc or conv")
        if kind == "fc" and index.shape[0] != 1:
            raise ValueError("a fully connected net has one patch: the whole input")
        self.kind = kind
        self.register_buffer("index", torch.as_tensor(np.asarray(index), dtype=torch.long))
        J, r = self.index.shape
        positions = J if kind == "lc" else 1
        # Small init (sharpness at init ~ 1 + init_scale^2, below 2/eta for every eta of the sweeps): inputs have norm
        # <= 1, so relu features of a hidden layer of `total` neurons contribute ~ init_scale^2 to the top eigenvalue.
        # Biases start at zero.
        total = width * (J if kind == "lc" else 1)
        w_std = init_scale * np.sqrt(2.0 / total)
        g = dict(generator=generator, dtype=dtype)
        self.w = nn.Parameter(torch.randn(positions, width, r, **g) * w_std * np.sqrt(d_over_r(index)))
        self.b = nn.Parameter(torch.zeros(positions, width, dtype=dtype))
        self.v = nn.Parameter(torch.randn(positions, width, **g) * init_scale / np.sqrt(total))
        self.beta = nn.Parameter(torch.zeros((), dtype=dtype))

    def patches(self, x: torch.Tensor) -> torch.Tensor:
        return x[:, self.index]                                            # (n, J, r)

    def preactivations(self, x: torch.Tensor) -> torch.Tensor:
        """z of shape (n, J, width): for fc/conv the shared neurons on every patch, for lc each position's own."""
        p = self.patches(x)
        if self.kind == "lc":                                              # (J, n, r) @ (J, r, m) -> (n, J, m)
            return torch.bmm(p.transpose(0, 1), self.w.transpose(1, 2)).transpose(0, 1) - self.b
        return p @ self.w[0].T - self.b[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.preactivations(x))
        if self.kind == "lc":
            return (h * self.v).sum(dim=(1, 2)) + self.beta
        return h.mean(dim=1) @ self.v[0] + self.beta

    def loss_and_grads(self, p: torch.Tensor, y: torch.Tensor) -> tuple[float, list[torch.Tensor]]:
        """L = 1/(2n) sum (f(x_i) - y_i)^2 and its gradient for (w, b, v, beta), written out by hand on precomputed
        patches p = self.patches(x) (n, J, r): GD's inner loop without autograd (tests check it against autograd)."""
        n, J = p.shape[0], p.shape[1]
        if self.kind == "lc":
            z = torch.einsum("njr,jmr->njm", p, self.w) - self.b
            h = torch.relu(z)
            f = (h * self.v).sum(dim=(1, 2)) + self.beta
            e = (f - y) / n
            gv = torch.einsum("n,njm->jm", e, h)
            gz = e[:, None, None] * self.v * (z > 0)
            gw = torch.einsum("njm,njr->jmr", gz, p)
            gb = -gz.sum(dim=0)
        else:
            z = p @ self.w[0].T - self.b[0]
            h = torch.relu(z)
            f = h.mean(dim=1) @ self.v[0] + self.beta
            e = (f - y) / n
            gv = (e @ h.mean(dim=1))[None]
            gz = e[:, None, None] * (self.v[0] / J) * (z > 0)
            gw = (gz.reshape(-1, gz.shape[-1]).T @ p.reshape(-1, p.shape[-1]))[None]
            gb = -gz.sum(dim=(0, 1))[None]
        loss = 0.5 * float((e * e).sum()) * n
        return loss, [gw, gb, gv, e.sum()]

    def neurons(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(w, b, v, position) per neuron, flattened; position = patch index (lc) or -1 (all patches: fc, conv)."""
        w, b, v = (t.detach().cpu().numpy() for t in (self.w, self.b, self.v))
        pos = np.repeat(np.arange(w.shape[0]), w.shape[1]) if self.kind == "lc" else np.full(w.shape[1], -1)
        return w.reshape(-1, w.shape[-1]), b.ravel(), v.ravel(), pos


class MaskedDense(nn.Module):
    """The reference for tests: one dense hidden layer of J*width neurons over the whole input, each weight row masked to
    its patch's coordinates. A locally connected net is exactly this with the mask; no gathering, no einsum."""

    def __init__(self, net: PatchNet):
        super().__init__()
        J, r = net.index.shape
        d = int(net.index.max()) + 1
        m = net.w.shape[1]
        dense = torch.zeros(J * m, d, dtype=net.w.dtype)
        mask = torch.zeros(J * m, d, dtype=net.w.dtype)
        for j in range(J):
            for k in range(m):
                wjk = net.w[j if net.kind == "lc" else 0, k].detach()
                dense[j * m + k].index_add_(0, net.index[j], wjk)
                mask[j * m + k, net.index[j]] = 1.0
        self.register_buffer("mask", mask)
        self.weight = nn.Parameter(dense)
        bias = net.b.detach() if net.kind == "lc" else net.b.detach()[0].repeat(J, 1)
        v = net.v.detach() if net.kind == "lc" else net.v.detach()[0].repeat(J, 1) / J  # conv: average pooling
        self.bias = nn.Parameter(bias.reshape(-1).clone())
        self.out = nn.Parameter(v.reshape(-1).clone())
        self.beta = nn.Parameter(net.beta.detach().clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x @ (self.weight * self.mask).T - self.bias) @ self.out + self.beta

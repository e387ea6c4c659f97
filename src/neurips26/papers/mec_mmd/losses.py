"""Distribution-matching losses over the location/scale model Z_j(theta) = mu + sigma E_j (fixed base draws E_j), in torch.

Only the theta-dependent part of each MMD^2 is needed: -2 (cross term) + U_M[k(G(Z), G(Z'))], where G is the identity
except for the deconvolution baselines (convMMD), which push the model through a noise channel and match the noisy Y.
The MEC cross term is mean k(Y, Z) + mean_A [k(X, Z) - k(Y, Z)], an unbiased estimate of the oracle's mean k(X, Z).
"""

from __future__ import annotations

import numpy as np
import torch

from neurips26.common.models import optim
from neurips26.papers.mec_mmd import baselines

METHODS = ("mec", "naive", "audit_only", "oracle", "regression_calibration", "conv_true", "conv_misspecified")


def _kernel_mean(a: torch.Tensor, b: torch.Tensor, h: float) -> torch.Tensor:
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)  # explicit squares: cdist's gradient is NaN at zero distance
    return torch.exp(-d2 / (2 * h * h)).mean()


def _u_mean(a: torch.Tensor, h: float) -> torch.Tensor:
    m = a.shape[0]
    return (_kernel_mean(a, a, h) * m * m - m) / (m * (m - 1))


def _channel(device, z: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    gain, offset = torch.as_tensor(device.gain), torch.as_tensor(device.offset)
    raw = gain * z + offset + device.noise * (device.sigma_base + z.abs()) * eps
    return raw.clamp(-device.clip, device.clip)


def method_spec(method: str, x, y, idx, device, mis_sd: float):
    """(cross terms [(coef, points)], channel on the model sample or None) for one method; x is used only where allowed."""
    t = torch.as_tensor
    if method == "mec":
        return [(1.0, t(y)), (1.0, t(x[idx])), (-1.0, t(y[idx]))], None
    if method == "naive":
        return [(1.0, t(y))], None
    if method == "audit_only":
        return [(1.0, t(x[idx]))], None
    if method == "oracle":
        return [(1.0, t(x))], None
    if method == "regression_calibration":
        return [(1.0, t(baselines.calibrate(y, baselines.fit_calibration(x[idx], y[idx]))))], None
    if method == "conv_true":
        return [(1.0, t(y))], lambda z, eps: _channel(device, z, eps)
    if method == "conv_misspecified":  # homoscedastic additive Gaussian noise, matched RMS sd, no gain/offset/clip
        return [(1.0, t(y))], lambda z, eps: z + mis_sd * eps
    raise ValueError(f"unknown method {method!r}")


def fit(spec, base: np.ndarray, eps: np.ndarray, h: float, theta0: np.ndarray, iterations: int) -> np.ndarray:
    """argmin_theta of the loss by L-BFGS (deterministic: fixed draws, fixed iterations); theta = (mu, log sigma)."""
    cross, channel = spec
    base_t, eps_t = torch.as_tensor(base), torch.as_tensor(eps)
    theta = torch.tensor(theta0, dtype=torch.float64, requires_grad=True)
    opt = optim.LBFGS([theta], lr=1.0, max_iter=iterations, line_search_fn="strong_wolfe",
                      tolerance_grad=1e-10, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        z = theta[:-1] + torch.exp(theta[-1]) * base_t
        if channel is not None:
            z = channel(z, eps_t)
        loss = _u_mean(z, h) - 2.0 * sum(c * _kernel_mean(p, z, h) for c, p in cross)
        loss.backward()
        return loss

    opt.step(closure)
    return theta.detach().numpy().copy()

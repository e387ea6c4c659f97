"""Embedded data: X from a Gaussian mixture, a measurement device Y = clip(gain X + offset + s sigma(X) eps), audits by
simple random sampling without replacement, and random streams derived from (seed, experiment, ...) keys."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STREAMS = {"bias": 1, "rate": 2, "estimation": 3, "testing": 4}


def stream(seed: int, experiment: str, *keys: int) -> np.random.Generator:
    """An independent generator per (seed, experiment, keys): experiments never share draws, reruns are identical."""
    return np.random.default_rng([int(seed), STREAMS[experiment], *map(int, keys)])


@dataclass(frozen=True)
class Mixture:
    weights: np.ndarray
    means: np.ndarray      # K x d
    variances: np.ndarray  # K x d (diagonal covariances)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        comp = rng.choice(self.weights.size, size=n, p=self.weights)
        return self.means[comp] + np.sqrt(self.variances[comp]) * rng.standard_normal((n, self.means.shape[1]))

    def shifted(self, delta) -> Mixture:
        return Mixture(self.weights, self.means + np.asarray(delta, float), self.variances)

    @property
    def components(self):
        """(weight, mean, covariance) triples for the closed-form kernel expectations."""
        return [(w, m, np.diag(v)) for w, m, v in zip(self.weights, self.means, self.variances)]

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and per-coordinate standard deviation."""
        mean = self.weights @ self.means
        second = self.weights @ (self.variances + self.means**2)
        return mean, np.sqrt(second - mean**2)


def mixture_from_cfg(cfg) -> Mixture:
    return Mixture(np.asarray(cfg.weights, float), np.asarray(cfg.means, float), np.asarray(cfg.variances, float))


@dataclass(frozen=True)
class Device:
    """Y = clip(gain * X + offset + noise * (sigma_base + |X|) * eps, -clip, clip): non-additive and heteroscedastic."""

    gain: np.ndarray
    offset: np.ndarray
    noise: float
    sigma_base: float
    clip: float

    def measure(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.apply(x, rng.standard_normal(x.shape))

    def apply(self, x, eps):
        """The channel with given standard-normal draws."""
        raw = self.gain * x + self.offset + self.noise * (self.sigma_base + abs(x)) * eps
        return raw.clip(-self.clip, self.clip)

    def mean_noise_sd(self, x: np.ndarray) -> float:
        """Root-mean-square noise standard deviation over units and coordinates (for the misspecified noise law)."""
        return float(np.sqrt(np.mean((self.noise * (self.sigma_base + np.abs(x))) ** 2)))


def device_from_cfg(cfg, noise: float, gain=None, offset=None) -> Device:
    return Device(np.asarray(gain if gain is not None else cfg.gain, float),
                  np.asarray(offset if offset is not None else cfg.offset, float), float(noise), float(cfg.sigma_base),
                  float(cfg.clip))


def audit(rng: np.random.Generator, N: int, n: int) -> np.ndarray:
    """Simple random sample of n of the N units, without replacement."""
    return rng.choice(N, size=n, replace=False)

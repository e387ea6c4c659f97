"""Positive controls: the claims' criteria on models whose dynamics are known, so each test is shown able to pass.

* Sharpening: full-batch GD with coupled weight decay on a depth-3 scalar linear network f = w1 w2 w3 fitting y = 1
  with the square loss (the 'minimalist' model of progressive sharpening, Yun et al. 2025). From a small balanced
  initialisation the sharpness rises from ~0 to D y^(2(D-1)/D) = 3 at the balanced minimum; weight decay opposes the
  growth of the weights (-lambda w against y w^2 at small w), so the time to reach 0.9 x 2/eta grows with lambda by
  construction. The Hessian is exact (closed form), independent of the Lanczos code.
* Damped oscillations: the linearised self-stabilisation picture of the EoS (Damian et al. 2023): S rises at a constant
  rate to 2/eta, then swings around 2/eta with a fixed period, its amplitude damped at a rate proportional to lambda.
  The trace is sampled at the configured checkpoints, cut by the same EoS stopping rule as the runs (grid.eos_stop_index)
  and goes through the same summary and claim code as the runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.wd_eos.grid import eos_stop_index

DEPTH, TARGET, INIT = 3, 1.0, 0.03
# below the minimum's sharpness 3 (about 2.96 at lambda = 0.01), so GD reaches the EoS threshold 2/eta - lambda and the
# rate of progressive sharpening has an onset (issue #71; it was 3.2, above it, while the time to 0.9 x 2/eta decided)
CONTROL_TWO_OVER_ETA = 2.8


def deep_scalar_hessian(w: np.ndarray, y: float = TARGET) -> np.ndarray:
    """Exact Hessian of 0.5 (prod w - y)^2: g g^T + (f - y) d2f, with g_i = prod_{k != i} w_k and
    d2f_ij = prod_{k != i, j} w_k (i != j; 0 on the diagonal)."""
    d = len(w)
    k, i, j = np.arange(d)[None, None, :], np.arange(d)[:, None, None], np.arange(d)[None, :, None]
    g = _first(w)
    second = np.prod(np.where((k != i) & (k != j), w[None, None, :], 1.0), axis=2) * (1.0 - np.eye(d))
    return np.outer(g, g) + (float(np.prod(w)) - y) * second


def _first(w: np.ndarray) -> np.ndarray:
    return np.prod(np.where(np.eye(len(w), dtype=bool), 1.0, w[None, :]), axis=1)


def deep_scalar_trace(eta: float, wd: float, steps: int, arch: str = "control", init: float = INIT,
                      seed: int = 0) -> pd.DataFrame:
    """GD with coupled weight decay on the depth-3 scalar network from w = init; S (exact) at every step, in the runs'
    trace format (`seed` labels the trace)."""
    w = np.full(DEPTH, init)
    rows = []
    for step in range(steps + 1):
        f = float(np.prod(w))
        sharp = float(np.linalg.eigvalsh(deep_scalar_hessian(w))[-1])
        rows.append(_row(arch, eta, wd, step, sharp, 0.5 * (f - TARGET) ** 2, seed))
        grad = (f - TARGET) * _first(w)
        w = w - eta * (grad + wd * w)
    return pd.DataFrame(rows)


def damped_eos_trace(eta: float, wd: float, steps: int, eig_freq: int, arch: str = "control",
                     start: float = 0.5, onset: int | None = None, amplitude: float = 0.1, period: float = 150.0,
                     damping: float = 0.5, seed: int = 0) -> pd.DataFrame:
    """S(t) = linear rise from start x 2/eta to 2/eta at `onset`, then 2/eta (1 + amplitude e^{-damping lambda (t -
    onset)} sin(2 pi (t - onset) / period)); sampled every eig_freq steps."""
    two = 2.0 / eta
    onset = steps // 3 if onset is None else onset
    rows = []
    for step in list(range(0, steps, eig_freq)) + [steps]:
        if step < onset:
            sharp = two * (start + (1.0 - start) * step / onset)
        else:
            t = step - onset
            sharp = two * (1.0 + amplitude * np.exp(-damping * wd * t) * np.sin(2 * np.pi * t / period))
        rows.append(_row(arch, eta, wd, step, sharp, float("nan"), seed))
    return pd.DataFrame(rows)


def _row(arch, eta, wd, step, sharp, loss, seed: int = 0) -> dict:
    return {"arch": arch, "decay": "coupled", "eta": eta, "wd": wd, "seed": seed, "step": step, "loss": loss,
            "loss_rise": 0.0, "accuracy": 1.0, "sharpness": sharp, "threshold": 2.0 / eta - wd,
            "alignment": float("nan"), "kernel_velocity": float("nan")}


# The sharpening control's "seeds" (claims contract v2 tests per seed): three initialisations of the deep scalar network
# (sharpening times 83-115, 56-68 and 43-49 steps over the default lambda grid).
CONTROL_INITS = (0.02, 0.03, 0.04)


def sharpening_traces(wds, steps: int = 400, inits=CONTROL_INITS) -> pd.DataFrame:
    """Both 'archs' of the sharpening claim played by the deep scalar network, at 2/eta = 3.2, one 'seed' per
    initialisation in `inits`."""
    eta = 2.0 / CONTROL_TWO_OVER_ETA
    one = pd.concat([deep_scalar_trace(eta, float(wd), steps, "mlp", init=init, seed=i)
                     for wd in wds for i, init in enumerate(inits)], ignore_index=True)
    return pd.concat([one, one.assign(arch="cnn")], ignore_index=True)


def stop_by_rule(trace: pd.DataFrame, window: int | None) -> pd.DataFrame:
    """The trace a run with this EoS stopping rule would have written: cut at the rule's stopping checkpoint."""
    stop = eos_stop_index(list(trace.sharpness), float(trace.threshold.iloc[0]), window)
    return trace if stop is None else trace.iloc[:stop + 1]


# The control's "seeds": swings of different sizes and periods, as the CNN seeds differ (every one damped by lambda), so
# the seed means and the common-seed rule are exercised on unequal seeds.
CONTROL_SEEDS = ({"amplitude": 0.1, "period": 150.0}, {"amplitude": 0.05, "period": 120.0},
                 {"amplitude": 0.15, "period": 180.0})


def oscillation_traces(eta: float, wds, steps: int, eig_freq: int, window: int | None = None,
                       seeds=CONTROL_SEEDS, **model) -> pd.DataFrame:
    """The 'cnn' of the damped-oscillation claim played by the damped EoS model at the configured CNN point (hard cap
    `steps`, stopping rule `window`), one trace per entry of `seeds` (damped_eos_trace keywords per seed); `model`:
    damped_eos_trace's keywords shared by all seeds."""
    return pd.concat([stop_by_rule(damped_eos_trace(eta, float(wd), steps, eig_freq, "cnn", seed=i,
                                                    **{**model, **variant}), window)
                      for wd in wds for i, variant in enumerate(seeds)], ignore_index=True)

"""wd_eos method pieces against independent references: the GD update rules and their stability thresholds on a quadratic,
the exact NTK against per-example gradients, the kernel distance, and the trace summary on a hand-made trace."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.papers.wd_eos import baselines, measures, method, models, summary
from neurips26.papers.wd_eos.data import make_split

CFG = OmegaConf.create({"mlp": {"widths": [7, 5], "activation": "tanh"}, "cnn": {"channels": [3, 4], "activation": "relu"}})


def _gd_on_quadratic(step, curvature, eta, wd, steps=400):
    """Iterate the update on L = curvature/2 theta^2 from theta=1; return |theta| at the end (diverges iff unstable)."""
    theta = torch.ones(1, dtype=torch.float64)
    for _ in range(steps):
        step([theta], [curvature * theta], eta, wd)
    return float(theta.abs())


@pytest.mark.parametrize("step,threshold", [(method.coupled_step, method.stability_threshold),
                                            (baselines.decoupled_step, baselines.decoupled_threshold)])
def test_update_is_stable_exactly_below_its_threshold(step, threshold):
    eta, wd = 0.2, 0.05
    edge = threshold(eta, wd)
    assert _gd_on_quadratic(step, 0.98 * edge, eta, wd) < 1.0
    assert _gd_on_quadratic(step, 1.02 * edge, eta, wd) > 1.0


def test_coupled_threshold_is_two_over_eta_minus_lambda():
    assert method.stability_threshold(0.1, 0.01) == pytest.approx(20 - 0.01)
    # decoupled: (1 - eta lambda)(1 - eta S) = -1
    eta, wd = 0.1, 0.3
    s = baselines.decoupled_threshold(eta, wd)
    assert (1 - eta * wd) * (1 - eta * s) == pytest.approx(-1.0)


@pytest.mark.parametrize(("arch", "shape"), [("mlp", (1, 4, 4)), ("cnn", (1, 4, 4)), ("cnn", (3, 4, 4))])
def test_exact_ntk_matches_per_example_gradients(arch, shape):
    torch.manual_seed(0)
    model = models.build(arch, CFG, shape, 3).double()
    probe = torch.randn(9, shape[0] * shape[1] * shape[2], dtype=torch.float64)
    torch.testing.assert_close(measures.ntk(model, probe), measures.ntk_reference(model, probe))


def test_kernel_distance_is_scale_invariant_and_positive():
    a = torch.randn(5, 5, dtype=torch.float64)
    k = a @ a.T
    assert measures.kernel_distance(k, 3.0 * k) == pytest.approx(0.0, abs=1e-12)
    b = torch.randn(5, 5, dtype=torch.float64)
    assert measures.kernel_distance(k, b @ b.T) > 0.01


def test_square_loss_matches_hand_computation():
    out = torch.tensor([[1.0, 0.0], [0.5, 0.5]])
    # targets (1,0) and (0,1): residuals (0,0) and (0.5,-0.5) -> 0.5 * (0 + 0.5) / 2
    assert float(models.square_loss(out, torch.tensor([0, 1]))) == pytest.approx(0.125)


def test_summary_on_a_hand_made_trace():
    steps = np.arange(0, 100, 10)
    sharp = np.array([2, 4, 6, 8, 9.5, 10.5, 9.5, 10.5, 9.5, 10.5])
    trace = pd.DataFrame({"arch": "mlp", "decay": "coupled", "eta": 0.2, "wd": 0.0, "seed": 0, "step": steps,
                          "sharpness": sharp, "alignment": -0.1, "kernel_velocity": 1e-5, "threshold": 10.0,
                          "loss": 0.1, "accuracy": 1.0})
    row = summary.summarise_run(trace, 0.9, 0.3)
    assert row["sharpening_time"] == 40          # first S >= 9
    assert row["plateau"] == pytest.approx(np.mean([10.5, 9.5, 10.5]))
    assert row["osc_std_late"] == pytest.approx(np.std([10.5, 9.5, 10.5]))
    # EoS onset: first S >= threshold 10 (step 50); amplitude: mean |dS| from there, / (2/eta) = 1 / 10
    assert row["eos_onset"] == 50 and row["osc_amplitude"] == pytest.approx(0.1)
    assert row["alignment"] == pytest.approx(0.1)
    never = summary.summarise_run(trace.assign(sharpness=1.0), 0.9, 0.3)
    assert np.isnan(never["sharpening_time"]) and never["sharpening_time_bound"] == 90 and not never["reached"]
    assert not never["eos_reached"] and np.isnan(never["osc_amplitude"])


def test_split_is_stratified_disjoint_and_standardised():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(10), 30)
    pixels = rng.uniform(0, 16, size=(300, 64))
    pixels[:, 0] = 0.0  # a constant pixel must not produce NaNs
    split = make_split(pixels, labels, n_train=100, probe_size=50, seed=0)
    assert np.bincount(split.y_train, minlength=10).tolist() == [10] * 10
    assert np.allclose(split.x_train.mean(0), 0, atol=1e-5) and np.isfinite(split.x_train).all()
    train_rows = {tuple(r) for r in split.x_train.round(5)}
    assert not train_rows & {tuple(r) for r in split.x_probe.round(5)}

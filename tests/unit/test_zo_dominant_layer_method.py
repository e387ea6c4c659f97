"""MeZO's SPSA estimator against the true gradient, untouched parameters, LoRA's identity start, and the outlier
detector on a decoder with a planted outlier."""

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.common.models.llm import encode_left_padded, label_token_ids, residual_stream
from neurips26.papers.zo_dominant_layer import lora, method, models

SMALL = OmegaConf.create({"vocab": 128, "hidden": 32, "layers": 4, "heads": 4, "kv_heads": 2, "intermediate": 64,
                          "plant_layer": -1, "plant_scale": 1.0})
TEXTS = ["Review: a fine film\nSentiment:", "Review: dull and long\nSentiment:", "Article: rates rise\nTopic:"]


def test_spsa_expectation_is_the_gradient_of_a_quadratic():
    """E_z[(l(x + eps z) - l(x - eps z)) / (2 eps) z] = A x + b exactly for a quadratic; the Monte-Carlo mean over
    n draws is within 4 standard errors per coordinate (variance from the samples themselves)."""
    rng = np.random.default_rng(0)
    d = 6
    m = rng.normal(size=(d, d))
    a = torch.tensor(m @ m.T / d + np.eye(d))
    b = torch.tensor(rng.normal(size=d))
    x = torch.nn.Parameter(torch.tensor(rng.normal(size=d)), requires_grad=False)

    def loss():
        return float(0.5 * x @ a @ x + b @ x)

    true = (a @ x + b).numpy()
    draws = np.stack([method.spsa_gradient([x], loss, 1e-3, seed)[0].numpy() for seed in range(4000)])
    se = draws.std(0) / np.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(0) - true) < 4 * se)
    assert np.linalg.norm(draws.mean(0) - true) < 0.2 * np.linalg.norm(true)  # and the test has power


def test_mezo_step_equals_the_stored_z_update_and_restores_between_evaluations():
    x = torch.nn.Parameter(torch.arange(5.0, dtype=torch.float64), requires_grad=False)
    before = x.detach().clone()
    seen = []

    def loss():
        seen.append(x.detach().clone())
        return float((x**2).sum())

    info = method.mezo_step([x], loss, 1e-3, 0.1, seed=7)
    z = torch.randn(5, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    assert torch.allclose(seen[0], before + 1e-3 * z) and torch.allclose(seen[1], before - 1e-3 * z)
    assert info["projected_grad"] == pytest.approx(float(2 * before @ z), rel=1e-6)
    assert torch.allclose(x, before - 0.1 * info["projected_grad"] * z, atol=1e-12)


def test_single_layer_mezo_leaves_every_other_parameter_bit_identical():
    tokenizer, model = models.small_decoder(SMALL, 0)
    ids, mask, _ = encode_left_padded(tokenizer, TEXTS)
    runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, ["negative", "positive"]))
    y = torch.tensor([1, 0, 1])
    runner.cache_inputs([2])
    before = {k: v.clone() for k, v in model.state_dict().items()}
    params = list(model.model.layers[2].parameters())
    for step in range(3):
        method.mezo_step(params, lambda: runner.loss(y, 2), 1e-3, 1e-2, step)
    after = model.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed and all(k.startswith("model.layers.2.") for k in changed)
    # the cached prefix gives the same logits as the full forward
    assert torch.allclose(runner.logits(2), runner.logits(0), atol=1e-5)


def test_lora_starts_as_the_identity_and_is_removed_cleanly():
    tokenizer, model = models.small_decoder(SMALL, 0)
    ids, mask, _ = encode_left_padded(tokenizer, TEXTS)
    runner = models.Runner(model, ids, mask, [5, 6])
    base = runner.logits(0)
    params = lora.add_lora(model.model.layers, 4, 8.0, 0)
    assert torch.equal(runner.logits(0), base) and len(params) == 2 * 2 * SMALL.layers
    with torch.no_grad():
        params[1].add_(1.0)
    assert not torch.allclose(runner.logits(0), base)
    lora.remove_lora(model.model.layers)
    assert torch.equal(runner.logits(0), base)


@pytest.mark.parametrize("planted", [1, 2])
def test_detector_finds_the_planted_outlier_layer(planted):
    tokenizer, model = models.small_decoder(SMALL, 0)
    ids, mask, position = encode_left_padded(tokenizer, TEXTS)
    clean = method.outlier_profile(residual_stream(model, ids, mask, position), mask)
    assert method.first_outlier_layer(clean, 1000.0, 100.0) == -1  # random weights: no massive activation
    models.plant_outlier(model, planted, 1e5, channel=3)
    profile = method.outlier_profile(residual_stream(model, ids, mask, position), mask)
    assert method.first_outlier_layer(profile, 1000.0, 100.0) == planted
    assert profile[planted + 1]["channel"] == 3 and profile[planted + 1]["ratio"] > 1000


def test_outlier_profile_matches_a_brute_force_count():
    h = torch.ones(2, 3, 4)
    h[1, 2, 1] = -500.0
    mask = torch.tensor([[0, 1, 1], [1, 1, 1]])
    row = method.outlier_profile([h], mask)[0]
    assert row["max_abs"] == 500.0 and row["median_abs"] == 1.0 and row["ratio"] == 500.0
    assert (row["token"], row["channel"]) == (2, 1)
    assert method.first_outlier_layer([row, {**row, "state": 1}], 100.0, 100.0) == 0


def test_outlier_position_counts_from_the_first_real_token_with_left_or_right_padding():
    h = torch.ones(1, 4, 2)
    h[0, 2, 1] = 900.0
    left = method.outlier_profile([h], torch.tensor([[0, 1, 1, 1]]))[0]
    right = method.outlier_profile([h], torch.tensor([[1, 1, 1, 0]]))[0]
    assert (left["token"], right["token"]) == (1, 2)

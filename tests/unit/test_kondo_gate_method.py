"""The Kondo gate against brute-force references: the kept set, the gated gradient (= a masked full-batch gradient),
zero backward compute for skipped samples, and DG's weights in closed form."""

import math

import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.kondo_gate.baselines import priority
from neurips26.papers.kondo_gate.method import (
    backward_flops_per_sample,
    bernoulli_gate,
    delight,
    dg_weights,
    gated_update,
    keep_probability,
    kept_count,
    select,
)
from neurips26.papers.kondo_gate.models import MLPPolicy, action_log_prob


def log_prob(policy, x, a):
    return action_log_prob(policy(x), a)


def brute_force_top(prio, k):
    """The k largest priorities, ties to the lower index, by plain Python sorting."""
    ranked = sorted(range(len(prio)), key=lambda i: (-prio[i], i))
    return sorted(ranked[:k])


@pytest.mark.parametrize("rate", [1.0, 0.5, 0.3, 0.1, 0.03])
def test_keep_rate_selection_matches_brute_force(rate):
    gen = torch.Generator().manual_seed(3)
    prio = torch.randint(0, 6, (40,), generator=gen).double()  # many ties
    kept = select(prio, keep_rate=rate).tolist()
    assert kept == brute_force_top(prio.tolist(), max(1, math.ceil(rate * 40 - 1e-9)))


def test_price_selection_keeps_exactly_the_samples_above_the_price():
    prio = torch.tensor([0.5, -1.0, 0.0, 2.0, 0.2])
    assert select(prio, price=0.0).tolist() == [0, 3, 4]
    assert select(prio, price=5.0).numel() == 0


def test_bad_gate_arguments_are_user_errors():
    with pytest.raises(UserError):
        kept_count(10, 0.0)
    with pytest.raises(UserError):
        select(torch.zeros(3), keep_rate=0.5, price=0.1)


def test_dg_weights_closed_form_in_numpy_and_torch():
    a, logp, eta = np.array([1.0, -0.5, 0.2]), np.log(np.array([0.1, 0.7, 0.5])), 0.7
    expected = a / (1 + np.exp(a * np.log(np.array([0.1, 0.7, 0.5])) / eta))
    np.testing.assert_allclose(dg_weights(a, logp, eta), expected)
    np.testing.assert_allclose(dg_weights(torch.tensor(a), torch.tensor(logp), eta).numpy(), expected)
    np.testing.assert_allclose(delight(a, logp), -a * logp)


def setup_batch(seed=0, batch=16):
    torch.manual_seed(seed)
    policy = MLPPolicy(5, 7, 4).double()
    x = torch.randn(batch, 5, dtype=torch.float64)
    a = torch.randint(0, 4, (batch,))
    adv = torch.randn(batch, dtype=torch.float64)
    return policy, x, a, adv


def gated_grad(policy, x, a, w, kept):
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.0)
    gated_update(policy, optimizer, x, a, w, kept, 0, log_prob)
    return [p.grad.clone() for p in policy.parameters()]


def test_gated_gradient_equals_masked_full_batch_gradient():
    policy, x, a, adv = setup_batch()
    with torch.no_grad():
        logp = log_prob(policy, x, a)
    kept = select(priority("delight", adv, logp, torch.Generator()), keep_rate=0.3)
    got = gated_grad(policy, x, a, adv, kept)
    mask = torch.zeros(len(x), dtype=torch.float64)
    mask[kept] = 1.0
    policy.zero_grad()
    (-(mask * adv * log_prob(policy, x, a)).sum() / len(x)).backward()  # the official normaliser: the whole batch
    for g, p in zip(got, policy.parameters()):
        torch.testing.assert_close(g, p.grad)


def test_skipped_samples_never_enter_the_backward_pass():
    """Poisoning the skipped samples with NaN changes nothing, and the counted backward FLOPs scale with the kept set."""
    policy, x, a, adv = setup_batch(1)
    kept = torch.tensor([2, 5, 11])
    clean = gated_grad(policy, x, a, adv, kept)
    poisoned = x.clone()
    poisoned[[i for i in range(len(x)) if i not in kept.tolist()]] = float("nan")
    for g, h in zip(clean, gated_grad(policy, poisoned, a, adv, kept)):
        torch.testing.assert_close(g, h)
    per_sample = backward_flops_per_sample(policy, x, a, log_prob)
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.0)
    with FlopCounterMode(display=False) as counter:
        cost = gated_update(policy, optimizer, x, a, adv, kept, per_sample, log_prob)
    forward_kept = 2 * 3 * (5 * 7 + 7 * 4)  # the forward on the 3 kept samples (counted in the same context)
    assert counter.get_total_flops() - forward_kept == cost.backward_flops == 3 * per_sample
    assert cost.backward_passes == 3
    assert gated_update(policy, optimizer, x, a, adv, torch.tensor([], dtype=torch.long), per_sample,
                        log_prob).backward_flops == 0


def test_backward_flops_per_sample_matches_the_matmul_count():
    """MLP in -> h -> o: weight grads 2*in*h + 2*h*o, input grad of layer 2: 2*h*o (layer 1's input needs none)."""
    policy, x, a, _ = setup_batch()
    assert backward_flops_per_sample(policy, x, a, log_prob) == 2 * 5 * 7 + 4 * 7 * 4


def test_bernoulli_gate_keeps_with_frequency_sigmoid_of_delight_minus_price():
    """The paper's gate: P(G = 1) = sigma((chi - lambda) / eta), checked by frequency over many draws (5 standard
    errors), for two prices and temperatures."""
    chi = torch.tensor([-2.0, -0.5, 0.0, 0.3, 1.0, 3.0], dtype=torch.float64)
    draws = 4000
    for price, eta in [(0.0, 1.0), (0.5, 0.25)]:
        gen = torch.Generator().manual_seed(0)
        counts = torch.zeros(len(chi), dtype=torch.float64)
        for _ in range(draws):
            counts[bernoulli_gate(chi, price, eta, gen)] += 1
        p = torch.sigmoid((chi - price) / eta)
        se = torch.sqrt(p * (1 - p) / draws).clamp_min(1e-3)
        assert ((counts / draws - p).abs() < 5 * se).all(), (price, eta, counts / draws, p)


def test_hard_gate_is_the_zero_temperature_limit():
    """eta = 0 keeps exactly chi > lambda (the price selection), and a tiny eta agrees away from the price."""
    gen = torch.Generator().manual_seed(1)
    chi = torch.randn(200, generator=gen, dtype=torch.float64)
    for price in (0.0, 0.4):
        hard = bernoulli_gate(chi, price, 0.0, torch.Generator().manual_seed(2))
        assert torch.equal(hard, select(chi, price=price))
        far = (chi - price).abs() > 1e-2
        tiny = keep_probability(chi, price, 1e-5)
        assert torch.equal(tiny[far].round(), (chi[far] > price).double())
    np.testing.assert_allclose(keep_probability(np.array([0.3, -1.0]), 0.1, 0.5), 1 / (1 + np.exp(-np.array([0.4, -2.2]))))
    with pytest.raises(UserError):
        keep_probability(chi, 0.0, -1.0)

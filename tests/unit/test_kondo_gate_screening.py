"""The cheap screening model: its cost accounting (forward + distillation FLOPs) and that it learns the policy."""

import numpy as np
import pandas as pd
import torch
from omegaconf import OmegaConf
from torch.utils.flop_counter import FlopCounterMode

from neurips26.papers.kondo_gate import bandit
from neurips26.papers.kondo_gate.models import MLPPolicy, ReversalTransformer, action_log_prob
from neurips26.papers.kondo_gate.screening import Screen
from neurips26.papers.kondo_gate.tables import table_main


def _mlp_logits(model, x, actions):
    return model(x)


def _sequence_logits(model, x, actions):
    return model(x, actions)


def _mlp_screen(hidden=4, batch=6):
    torch.manual_seed(0)
    x = torch.rand(batch, 12)
    teacher = torch.randn(batch, 10)
    return Screen(MLPPolicy(12, hidden, 10), 1e-2, x, teacher.argmax(-1), teacher, _mlp_logits), x, teacher


def test_mlp_screen_counts_the_closed_form_matmul_flops():
    """Forward of 12-4-10: 2*(12*4 + 4*10) FLOPs; distillation = forward + backward (input grads of the second layer and
    weight grads of both layers: 2 * forward minus the first layer's input grad) = 3x forward - 2*12*4."""
    screen, *_ = _mlp_screen()
    fwd = 2 * (12 * 4 + 4 * 10)
    assert screen.forward_flops == fwd
    assert screen.train_flops == fwd + (2 * fwd - 2 * 12 * 4)


def test_step_flops_equal_the_counter_around_the_real_step():
    for make in (lambda: _mlp_screen(batch=7),):
        screen, x, teacher = make()
        actions = teacher.argmax(-1)
        with FlopCounterMode(display=False) as counter:
            _, spent = screen.step(x, actions, teacher)
        assert spent == counter.get_total_flops() == len(x) * (screen.forward_flops + screen.train_flops)


def test_transformer_screen_cost_is_linear_and_matches_the_counter():
    torch.manual_seed(1)
    x = torch.randint(0, 4, (5, 6))
    teacher = torch.randn(5, 6, 4)
    actions = teacher.argmax(-1)
    screen = Screen(ReversalTransformer(4, 6, 16, 1, 2, 32), 1e-3, x, actions, teacher, _sequence_logits)
    with FlopCounterMode(display=False) as counter:
        logp, spent = screen.step(x, actions, teacher)
    assert spent == counter.get_total_flops() > 0
    assert logp.shape == (5,)
    big = ReversalTransformer(4, 6, 64, 2, 4, 128)
    with torch.no_grad(), FlopCounterMode(display=False) as c2:
        big(x[:1], actions[:1])
    assert screen.forward_flops < c2.get_total_flops() / 8  # the screen is much cheaper than the policy


def test_screen_learns_the_teacher_distribution():
    screen, x, teacher = _mlp_screen(hidden=32)
    actions = teacher.argmax(-1)
    target = action_log_prob(teacher, actions)
    before = (screen.surprisal_logp(x, actions) - target).abs().mean()
    for _ in range(100):
        screen.learn(x, actions, teacher)
    after = (screen.surprisal_logp(x, actions) - target).abs().mean()
    assert after < 0.5 * before


def test_main_table_carries_screen_flops_and_the_budget_rule():
    runs = pd.DataFrame({"task": "t", "method": ["dg"] * 3 + ["screen_delight"] * 3,
                         "keep_rate": [1.0] * 3 + [0.3] * 3, "price": np.nan, "seed": 0, "step": [0, 40, 50] * 2,
                         "backward_passes": [0, 80, 100, 0, 24, 30], "backward_flops": [0, 8, 10, 0, 2, 3],
                         "screen_flops": [0, 0, 0, 0, 4, 5], "score": [0.2, 0.7, 0.705, 0.2, 0.5, 0.6]})
    table = table_main(runs).set_index("method")
    assert table.loc["screen_delight", "screen_flops"] == 5
    assert table.loc["dg", "screen_flops"] == 0
    assert table.loc["dg", "last_fifth_gain"] == np.float64(0.705 - 0.7)
    assert abs(table.loc["screen_delight", "last_fifth_gain"] - 0.1) < 1e-12


CFG = OmegaConf.create({"replicates": 400, "arms": 5, "batch": 32, "logit_scale": 0.5, "reward_noise": 0.0,
                        "eta": 1.0, "baseline": "value", "problem": "one_correct", "keep_rates": [0.3],
                        "screens": ["delight", "random", "additive"]})


def test_hard_zero_price_gate_keeps_only_parallel_terms():
    """One correct arm, value baseline: chi > 0 exactly on the correct-arm samples, so the hard gate (eta -> 0) keeps
    no perpendicular noise; the Bernoulli gate at eta 1 keeps some."""
    rows = {r["method"]: r for r in bandit.analyse(CFG, 0.5, seed=3)}
    hard, soft, r = rows["hard_price0"], rows["kondo_price0"], rows["reinforce"]
    assert hard["noise"] < 1e-9 < soft["noise"] < r["noise"]
    assert hard["kept_fraction"] < soft["kept_fraction"] < 1
    assert abs(rows["random_matched"]["kept_fraction"] - soft["kept_fraction"]) < 0.02


def test_value_baseline_is_the_exact_expected_reward():
    batch = bandit.sample_batch(CFG, np.random.default_rng(0))
    adv = bandit.advantage(batch, "value")
    value = (batch["pi"] * batch["mu"]).sum(1, keepdims=True)
    np.testing.assert_allclose(adv + value, batch["reward"])
    # one correct arm: A > 0 exactly for the correct-arm samples
    correct = np.take_along_axis(batch["mu"], batch["actions"], 1) == 1
    assert ((adv > 0) == correct).all()

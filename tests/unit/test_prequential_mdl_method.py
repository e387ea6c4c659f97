"""The prequential code length, regret and PAC-MDL bound against hand-computed cases; the block code against a
closed-form class-frequency model; sharpness against a dense Hessian; the margin."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from neurips26.common.models.optim import Adam
from neurips26.papers.prequential_mdl.baselines import (
    block_boundaries,
    block_code_length,
    margin_quantile,
    sharpness,
)
from neurips26.papers.prequential_mdl.method import code_length_bits, mlp, pac_mdl_bound, regret, train_prequential


def _two_point_run(max_epochs: int):
    """A zero-initialised 1-input, 2-class linear model, SGD with lr 1, batch 1, examples (x=1, y=0) then (x=1, y=1)."""
    model = nn.Linear(1, 2, bias=False)
    nn.init.zeros_(model.weight)
    x, y = torch.ones(2, 1), torch.tensor([0, 1])
    traj = train_prequential(model, x, y, torch.optim.SGD(model.parameters(), lr=1.0), batch=1,
                             max_epochs=max_epochs, stop_accuracy=2.0, first_order=torch.tensor([0, 1]),
                             generator=torch.Generator().manual_seed(0))
    return model, x, y, traj


def test_prequential_code_length_matches_a_hand_computed_case():
    # Batch 1 is scored at W = 0: p = 1/2, 1 bit. Its gradient is (p - e_0) x = (-1/2, 1/2), so W = (1/2, -1/2).
    # Batch 2 (y = 1) is scored at logits (1/2, -1/2): -log2 sigma(-1) = log2(1 + e) bits.
    model, x, y, traj = _two_point_run(max_epochs=1)
    assert traj.preq_bits == pytest.approx(1.0 + math.log2(1.0 + math.e), rel=1e-6)
    # Its gradient is (sigma(1), -sigma(1)), so the final W = (a, -a) with a = 1/2 - sigma(1).
    a = 0.5 - 1.0 / (1.0 + math.exp(-1.0))
    assert model.weight.detach().squeeze().tolist() == pytest.approx([a, -a], abs=1e-6)
    final = math.log2(1 + math.exp(-2 * a)) + math.log2(1 + math.exp(2 * a))
    with torch.no_grad():
        assert code_length_bits(model(x), y) == pytest.approx(final, rel=1e-6)
    assert regret(traj.preq_bits, final) == pytest.approx(1.0 + math.log2(1.0 + math.e) - final, rel=1e-6)
    assert traj.steps == 2 and traj.epochs == 1 and not traj.interpolated


def test_later_epochs_do_not_add_to_the_prequential_code():
    first, _, _, one = _two_point_run(max_epochs=1)
    later, _, _, three = _two_point_run(max_epochs=3)
    assert three.preq_bits == pytest.approx(one.preq_bits) and three.epochs == 3 and three.steps == 6
    assert not torch.allclose(first.weight, later.weight)  # training went on, the code did not grow


def test_training_stops_at_the_target_accuracy():
    torch.manual_seed(0)
    x = torch.randn(64, 5)
    y = (x[:, 0] > 0).long()
    model = mlp(5, 32, 2)
    traj = train_prequential(model, x, y, Adam(model.parameters(), lr=0.01), batch=16, max_epochs=200,
                             stop_accuracy=1.0, first_order=torch.arange(64), generator=torch.Generator())
    assert traj.interpolated and traj.epochs < 200
    assert (model(x).argmax(1) == y).all()


def test_pac_mdl_bound_hand_numbers():
    # 0.1 + sqrt((100 ln 2 + ln 20) / 2000) = 0.1 + sqrt(0.0361552) = 0.290145
    assert pac_mdl_bound(0.1, 100.0, 1000, 0.05) == pytest.approx(0.290145, abs=1e-6)
    # a negative realised regret is clipped at zero: only the confidence term remains
    assert pac_mdl_bound(0.0, -5.0, 50, 0.1) == pytest.approx(math.sqrt(math.log(10) / 100), rel=1e-12)
    assert pac_mdl_bound(0.0, 10.0, 100, 0.05) < pac_mdl_bound(0.0, 20.0, 100, 0.05)
    with pytest.raises(ValueError):
        pac_mdl_bound(0.0, 1.0, 100, 1.5)


def test_block_code_against_a_class_frequency_model():
    """Each block coded by Laplace-smoothed label frequencies of the prefix: a closed form for the code length."""
    y = torch.tensor([0, 0, 1, 0, 1, 1, 0, 0, 0, 1])
    x = torch.zeros(10, 1)

    def fit(_, prefix_labels):
        counts = torch.bincount(prefix_labels, minlength=2).double() + 1.0
        logp = torch.log(counts / counts.sum())
        return lambda xs: logp.expand(len(xs), 2)

    # blocks [0, 2) uniform: 2 bits; [2, 5) = (1, 0, 1) with p = (3/4, 1/4); [5, 10) = (1, 0, 0, 0, 1) with p = (4/7, 3/7)
    expected = 2.0 + (2 * 2.0 + math.log2(4 / 3)) + (3 * math.log2(7 / 4) + 2 * math.log2(7 / 3))
    assert block_code_length(x, y, 2, [0.2, 0.5, 1.0], fit) == pytest.approx(expected, rel=1e-9)
    assert block_boundaries(10, [0.2, 0.5, 1.0]) == [0, 2, 5, 10]
    with pytest.raises(ValueError, match="increase strictly to 1.0"):
        block_boundaries(10, [0.5, 0.2, 1.0])


def test_margin_quantile_by_hand():
    logits = torch.tensor([[3.0, 1.0, 0.0], [0.0, 2.0, 2.5], [1.0, 1.0, 4.0]])
    labels = torch.tensor([0, 1, 2])
    # margins: 3 - 1 = 2, 2 - 2.5 = -0.5, 4 - 1 = 3; the median is 2
    assert margin_quantile(logits, labels, 0.5) == pytest.approx(2.0)
    assert margin_quantile(logits, labels, 0.0) == pytest.approx(-0.5)


def test_sharpness_is_the_top_eigenvalue_of_the_dense_hessian():
    torch.manual_seed(1)
    model = mlp(3, 4, 3).double()
    x, y = torch.randn(30, 3, dtype=torch.float64), torch.randint(0, 3, (30,))
    params = list(model.parameters())
    shapes = [p.shape for p in params]
    sizes = [p.numel() for p in params]

    def loss_of(flat):
        parts = [t.view(s) for t, s in zip(torch.split(flat, sizes), shapes)]
        return nn.functional.cross_entropy(torch.func.functional_call(
            model, dict(zip([n for n, _ in model.named_parameters()], parts)), (x,)), y)

    flat = torch.cat([p.detach().reshape(-1) for p in params])
    dense = torch.autograd.functional.hessian(loss_of, flat)
    top = float(np.linalg.eigvalsh(dense.numpy()).max())
    assert sharpness(model, x, y, iters=sum(sizes), seed=0) == pytest.approx(top, rel=1e-6)


def test_one_pass_code_is_the_code_at_the_end_of_the_first_epoch():
    # the one-pass comparator theta_K is the model after epoch 1: its code length is the hand-computed final code of
    # the one-epoch run, however long training goes on
    a = 0.5 - 1.0 / (1.0 + math.exp(-1.0))
    final = math.log2(1 + math.exp(-2 * a)) + math.log2(1 + math.exp(2 * a))
    for epochs in (1, 3):
        assert _two_point_run(max_epochs=epochs)[3].one_pass_bits == pytest.approx(final, rel=1e-6)


def test_later_epochs_use_their_own_batch_size():
    model = nn.Linear(1, 2, bias=False)
    nn.init.zeros_(model.weight)
    x, y = torch.ones(2, 1), torch.tensor([0, 1])
    traj = train_prequential(model, x, y, torch.optim.SGD(model.parameters(), lr=1.0), batch=1, max_epochs=3,
                             stop_accuracy=2.0, first_order=torch.tensor([0, 1]),
                             generator=torch.Generator().manual_seed(0), later_batch=2)
    # epoch 1: two steps of one example (the prequential code is unchanged); epochs 2-3: one step of both
    assert traj.steps == 2 + 2 and traj.preq_bits == pytest.approx(1.0 + math.log2(1.0 + math.e), rel=1e-6)


def test_cosine_schedule_decays_the_later_epochs_only():
    from neurips26.papers.prequential_mdl.method import lr_factor

    factors = [lr_factor("cosine", e, 100) for e in range(1, 101)]
    assert factors[0] == factors[1] == 1.0 and 0 < factors[-1] < 0.01
    assert all(b < a for a, b in zip(factors[1:], factors[2:]))
    assert lr_factor("constant", 50, 100) == 1.0
    with pytest.raises(ValueError, match="schedule"):
        lr_factor("step", 2, 10)


def test_the_code_does_not_depend_on_the_epoch_budget_of_the_schedule():
    """The first epoch runs at the base rate whatever max_epochs the cosine decay is spread over; later ones do not."""
    runs = []
    for max_epochs in (3, 30):
        torch.manual_seed(0)
        x, y = torch.randn(64, 5), torch.randint(0, 3, (64,))
        model = mlp(5, 16, 3)
        opt = Adam(model.parameters(), lr=0.01)
        traj = train_prequential(model, x, y, opt, batch=16, max_epochs=max_epochs, stop_accuracy=2.0,
                                 first_order=torch.arange(64), generator=torch.Generator().manual_seed(1),
                                 schedule="cosine")
        runs.append((traj, opt.param_groups[0]["lr"]))
    assert runs[0][0].preq_bits == runs[1][0].preq_bits and runs[0][0].one_pass_bits == runs[1][0].one_pass_bits
    assert runs[0][1] == pytest.approx(0.01 * 0.5 * (1 + math.cos(math.pi / 2)))  # epoch 3 of 3

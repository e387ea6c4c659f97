"""sparse_eos architectures: the locally connected and conv layers against an explicit masked dense layer."""

import numpy as np
import pytest
import torch

from neurips26.papers.sparse_eos.models import MaskedDense, PatchNet, random_patches, windows_1d, windows_2d


def _perturbed(net: PatchNet, seed: int) -> PatchNet:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.3)
    return net


@pytest.mark.parametrize("index", [windows_1d(12, 3), windows_1d(12, 4, stride=2), windows_2d(5, 2),
                                   random_patches(12, 3, 5, np.random.default_rng(0))])
@pytest.mark.parametrize("kind", ["lc", "conv"])
def test_patch_net_equals_masked_dense(kind, index):
    net = _perturbed(PatchNet(kind, index, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64), 2)
    dense = MaskedDense(net)
    x = torch.randn(17, int(index.max()) + 1, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    assert torch.allclose(net(x), dense(x), atol=1e-12)


def test_lc_gradients_equal_masked_dense_gradients():
    """The lc weight gradient of neuron (j, k) is the masked dense row's gradient on the patch's coordinates, and the
    masked dense layer's gradient vanishes off the patch: locality is exact, not approximate."""
    index = windows_1d(10, 2)
    net = _perturbed(PatchNet("lc", index, 2, generator=torch.Generator().manual_seed(4), dtype=torch.float64), 5)
    dense = MaskedDense(net)
    x = torch.randn(9, 10, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    gw, = torch.autograd.grad(net(x).pow(2).sum(), [net.w])
    gd, = torch.autograd.grad(dense(x).pow(2).sum(), [dense.weight])
    m = net.w.shape[1]
    for j, idx in enumerate(index):
        for k in range(m):
            row = gd[j * m + k]
            assert torch.allclose(row[idx], gw[j, k], atol=1e-12)
            off = torch.ones(10, dtype=torch.bool)
            off[idx] = False
            assert torch.all(row[off] == 0)


def test_fc_is_one_patch_and_windows_cover_input():
    net = PatchNet("fc", np.arange(7)[None], 4, generator=torch.Generator().manual_seed(0))
    x = torch.randn(3, 7)
    manual = torch.relu(x @ net.w[0].T - net.b[0]) @ net.v[0] + net.beta
    assert torch.allclose(net(x), manual, atol=1e-6)
    assert sorted(windows_1d(12, 4).ravel().tolist()) == list(range(12))
    assert windows_2d(4, 2, stride=2).tolist() == [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]]
    with pytest.raises(ValueError):
        windows_1d(4, 5)
    with pytest.raises(ValueError):
        PatchNet("fc", windows_1d(8, 2), 3)


@pytest.mark.parametrize("kind,index", [("fc", np.arange(9)[None]), ("lc", windows_1d(9, 3)), ("conv", windows_2d(4, 2)),
                                        ("lc", random_patches(12, 3, 4, np.random.default_rng(1)))])
def test_hand_written_gradients_equal_autograd(kind, index):
    """GD's inner loop uses PatchNet.loss_and_grads (no autograd); it must equal autograd on L = 1/(2n) sum (f - y)^2."""
    net = _perturbed(PatchNet(kind, index, 3, generator=torch.Generator().manual_seed(7), dtype=torch.float64), 8)
    gen = torch.Generator().manual_seed(9)
    x = torch.randn(11, int(index.max()) + 1, generator=gen, dtype=torch.float64)
    y = torch.randn(11, generator=gen, dtype=torch.float64)
    loss = 0.5 * ((net(x) - y) ** 2).mean()
    auto = torch.autograd.grad(loss, list(net.parameters()))
    with torch.no_grad():
        value, hand = net.loss_and_grads(net.patches(x), y)
    assert value == pytest.approx(loss.item(), rel=1e-12)
    for a, h in zip(auto, hand):
        assert torch.allclose(a, h, atol=1e-12)


def test_convergence_rule_stops_at_the_target_and_flags_the_cap():
    from omegaconf import OmegaConf

    from neurips26.papers.sparse_eos.method import train

    rule = OmegaConf.create({"check_every": 1, "window": 5, "rel_tol": 0.0, "loss_floor": 0.0, "min_steps": 10 ** 6,
                             "max_steps": 400, "lanczos_iters": 5})
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(30, 4, generator=gen, dtype=torch.float64)
    y = x[:, 0].clone()
    fit = train(PatchNet("fc", np.arange(4)[None], 8, generator=gen, dtype=torch.float64), x, y, 0.5, rule,
                target_mse=0.5)
    assert fit.stop == "target" and fit.converged and 2 * fit.train_loss <= 0.5 + 1e-9
    capped = train(PatchNet("fc", np.arange(4)[None], 8, generator=gen, dtype=torch.float64), x, y, 0.5, rule,
                   target_mse=0.0)
    assert capped.stop == "cap" and not capped.converged and capped.steps == 400

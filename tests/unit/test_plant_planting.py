"""PLANT's trainable planting (issue #65 items 1-2): at step 0 the planted attention is the L2R scorer's softmax
(hand-computed), the planted parameters and mixing weights get gradients and move after one step, LAAT is the same
decoder without planting, and random relevance can keep more than half of PLANT's gain (removed_minus_half < 0)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
from omegaconf import OmegaConf

from neurips26.papers.plant import method, paper_claims, planting


def _factors():
    # 4 tokens x 2 labels, 1 factor: s(t, l) = u_t v_l + bt_t + bl_l
    return {
        "u": np.array([[1.0], [0.5], [-1.0], [0.0]]),
        "v": np.array([[2.0], [1.0]]),
        "bt": np.array([0.0, 0.0, 1.0, 0.5]),
        "bl": np.array([0.0, -1.0]),
    }


def _table(f):
    return f["u"] @ f["v"].T + f["bt"][:, None] + f["bl"][None]


def test_at_step_zero_the_planted_attention_is_the_l2r_softmax_by_hand():
    f = _factors()
    table = _table(f)  # label 0: scores 2, 1, -1, 0.5; label 1: 1, -0.5, -1, -0.5 (+ biases as written)
    np.testing.assert_allclose(table, [[2.0, 0.0], [1.0, -0.5], [-1.0, -1.0], [0.5, -0.5]])
    kept = method.inattention(table, 2)  # label 0 keeps tokens {0, 1}; label 1 keeps {0, 1} (0 > -0.5 = -0.5 tie)
    ids = np.array([[0, 1, 3, 0], [3, 2, 1, 1]])
    mask = np.array([[1, 1, 1, 0], [1, 1, 1, 0]], dtype=bool)
    entries = planting.support(kept, ids, mask, chunk=1)
    assert torch.equal(entries["pair_token"][entries["pair"]], entries["token"])  # each entry's (token, label) pair
    assert torch.equal(entries["pair_label"][entries["pair"]], entries["label"])
    assert len(entries["pair_token"]) == 4  # 2 support tokens x 2 labels
    grown = planting.TrainablePlanting(f)
    a = grown.dense(entries, torch.tensor([0, 1]), 4).detach().numpy()
    e = math.e
    # doc 0, label 0: positions 0 (token 0, score 2) and 1 (token 1, score 1); token 3 is outside the support
    np.testing.assert_allclose(a[0, :, 0], [e**2 / (e**2 + e), e / (e**2 + e), 0, 0], rtol=1e-6)
    # doc 0, label 1: token 0 (score 0) and token 1 (score -0.5)
    np.testing.assert_allclose(a[0, :, 1], [1 / (1 + e**-0.5), e**-0.5 / (1 + e**-0.5), 0, 0], rtol=1e-6)
    # doc 1: only position 2 (token 1) is in the supports (position 3 is padding)
    np.testing.assert_allclose(a[1, :, 0], [0, 0, 1, 0], atol=1e-7)
    # the frozen path on the same initial table gives the same attention (the planted table IS the L2R softmax)
    dense = method.planted_attention(torch.tensor(kept, dtype=torch.float32), torch.tensor(ids), torch.tensor(mask))
    np.testing.assert_allclose(a, dense.numpy(), rtol=1e-6, atol=1e-7)


def _decoder_and_batch():
    rng = np.random.default_rng(3)
    f = {k: v.astype(np.float32) for k, v in _factors().items()}
    ids = rng.integers(0, 4, size=(6, 5))
    mask = np.ones_like(ids, dtype=bool)
    entries = planting.support(method.inattention(_table(f), 2), ids, mask)
    torch.manual_seed(0)
    model = method.Decoder(3, 2, 2, 0.0, None, planting.TrainablePlanting(f), (0.0, 1.0))
    H = torch.as_tensor(rng.normal(size=(6, 5, 3)), dtype=torch.float32)
    Y = torch.as_tensor(rng.random((6, 2)) < 0.5, dtype=torch.float32)
    return model, {"H": H, "ids": torch.as_tensor(ids), "mask": torch.as_tensor(mask), "Y": Y, "planted": entries}, f


def test_planted_parameters_and_mixing_weights_get_gradients_and_move_after_one_step():
    model, data, f = _decoder_and_batch()
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    np.testing.assert_array_equal(before["planting.u"].numpy(), f["u"])  # the L2R factors, copied
    docs = torch.arange(6)
    logits = model(data["H"], data["ids"], data["mask"], data["planted"], docs)
    torch.nn.functional.binary_cross_entropy_with_logits(logits, data["Y"]).backward()
    for name in ("planting.u", "planting.v", "planting.bt", "planting.bl", "mix"):
        grad = dict(model.named_parameters())[name].grad
        assert grad is not None and grad.abs().sum() > 0, name
    cfg = OmegaConf.create({"lr": 0.05, "batch": 6, "max_epochs": 1, "stopping": "fixed"})
    model, _, _ = method.train(model, data, np.arange(6), np.arange(6), cfg, np.random.default_rng(0), None)
    after = dict(model.named_parameters())
    for name in ("planting.u", "planting.v", "planting.bt", "planting.bl", "mix"):
        assert not torch.equal(after[name].detach(), before[name]), name
    np.testing.assert_array_equal(f["u"], _factors()["u"].astype(np.float32))  # the source factors untouched


def test_at_step_zero_plant_uses_only_the_planted_attention_and_laat_is_the_same_decoder_without_it():
    model, data, _ = _decoder_and_batch()
    docs = torch.arange(6)
    z = torch.tanh(model.proj(data["H"]))
    zb = z @ model.beta.T
    a_pl = model.planting.dense(data["planted"], docs, 5)
    want = (a_pl * zb).sum(1) + model.bias
    torch.testing.assert_close(model(data["H"], data["ids"], data["mask"], data["planted"], docs), want)
    torch.manual_seed(0)
    laat = method.Decoder(3, 2, 2, 0.0, None)
    assert {k for k, _ in laat.named_parameters()} == {"proj.weight", "proj.bias", "u", "beta", "bias"}
    for name, p in laat.named_parameters():  # the same initial weights (same seed)
        assert torch.equal(p, dict(model.named_parameters())[name])


def test_removed_minus_half_goes_negative_when_random_relevance_keeps_the_gain():
    from tests.unit.test_plant_fair import _tables

    main, rare, fraction, ablation, paired = _tables(0.05, random_gain=0.02, plant_gain=(0.019, 0.02, 0.021))
    claims, _ = paper_claims.build(main, rare, fraction, ablation, paired)
    entry = {c.id: c.to_json("default", "embedded") for c in claims}["ablation_l2r"]
    removed = entry["tests"][1]
    assert removed["estimate"] < 0 and entry["verdict"] == "fails"  # 0.5 * 2 - 2 = -1 point
    assert isinstance(paired, pd.DataFrame)

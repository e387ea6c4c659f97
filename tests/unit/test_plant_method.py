"""PLANT: the MI table and LambdaRank gradients against brute force, planted attention against a hand-computed
example, the sparse planted path against the dense one, metrics and the dataset builder on small cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.plant import data, l2r, method, metrics, mi


def _brute_mi(t: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    n, total, h = len(t), 0.0, {}
    for a in (0, 1):
        for b in (0, 1):
            p = np.mean((t == a) & (y == b))
            if p > 0:
                total += p * math.log(p / (np.mean(t == a) * np.mean(y == b)))
    ent = lambda v: -sum(q * math.log(q) for q in (np.mean(v), 1 - np.mean(v)) if q > 0)  # noqa: E731
    h = ent(t) + ent(y) - total
    assert n > 0
    return total, (total / h if h > 1e-12 else 0.0)


def test_mutual_information_matches_a_brute_force_2x2_table():
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 7, size=(12, 5))
    mask = rng.random((12, 5)) < 0.8
    Y = (rng.random((12, 3)) < 0.4).astype(np.float32)
    Y[:, 2] = 1  # a label on every document: MI 0
    X = mi.presence(ids, mask, 7)
    got, norm = mi.mutual_information(X, Y)
    for v in range(7):
        present = np.array([(ids[i][mask[i]] == v).any() for i in range(12)]).astype(int)
        for j in range(3):
            want, want_norm = _brute_mi(present, Y[:, j])
            assert got[v, j] == pytest.approx(want, rel=1e-6, abs=1e-9)  # brute force in float32
            assert norm[v, j] == pytest.approx(want_norm, rel=1e-6, abs=1e-9)
    assert np.all(got[:, 2] == 0)


def test_a_token_that_is_the_label_has_normalised_mi_one():
    ids = np.array([[1, 0], [1, 0], [2, 0], [2, 0]])
    X = mi.presence(ids, np.array([[1, 0]] * 4, dtype=bool), 3)
    _, norm = mi.mutual_information(X, np.array([[1], [1], [0], [0]], dtype=np.float32))
    assert norm[1, 0] == pytest.approx(1.0) and norm[2, 0] == pytest.approx(1.0) and norm[0, 0] == 0


def _ndcg(order_scores, rel, k):
    order = np.argsort(-order_scores, kind="stable")
    gain = 2.0 ** rel - 1
    dcg = sum(gain[i] / math.log2(p + 2) for p, i in enumerate(order[:k]))
    ideal = sum(g / math.log2(p + 2) for p, g in enumerate(sorted(gain, reverse=True)[:k]))
    return dcg / ideal


def test_delta_ndcg_is_the_ndcg_change_of_swapping_two_items():
    rng = np.random.default_rng(1)
    s, rel, k = rng.normal(size=9), rng.integers(0, 4, size=9), 4
    delta = l2r.delta_ndcg(torch.tensor(s[None]), torch.tensor(rel[None]), k)[0].numpy()
    for i in range(9):
        for j in range(9):
            swapped = s.copy()
            swapped[i], swapped[j] = s[j], s[i]
            assert delta[i, j] == pytest.approx(abs(_ndcg(s, rel, k) - _ndcg(swapped, rel, k)), abs=1e-6)


def test_lambdarank_gradient_is_minus_the_brute_force_lambdas():
    rng = np.random.default_rng(2)
    s, rel = rng.normal(size=(3, 10)), rng.integers(0, 5, size=(3, 10))
    scores = torch.tensor(s, requires_grad=True)
    (l2r.lambdarank_loss(scores, torch.tensor(rel), sigma=0.5, k=6) * 3).backward()
    for b in range(3):
        np.testing.assert_allclose(-scores.grad[b].numpy(), l2r.lambdas(s[b], rel[b], 0.5, 6), atol=1e-10)


def test_the_scorer_learns_to_rank_planted_grades():
    rng = np.random.default_rng(3)
    rel = np.zeros((40, 5), dtype=np.int64)
    for j in range(5):
        rel[rng.choice(40, 6, replace=False), j] = rng.integers(1, 11, size=6)
    from omegaconf import OmegaConf

    cfg = OmegaConf.create({"factors": 8, "lr": 0.05, "weight_decay": 0.0, "steps": 150, "list_relevant": 6,
                            "list_random": 10, "sigma": 0.5, "ndcg_k": 6})
    table, history, factors = l2r.train_scorer(rel, cfg, rng)
    rebuilt = factors["u"] @ factors["v"].T + factors["bt"][:, None] + factors["bl"]
    np.testing.assert_allclose(rebuilt, table, rtol=1e-5, atol=1e-5)          # the factors are the table's
    assert history[-1] > history[0] and history[-1] > 0.8
    assert np.mean([_ndcg(table[:, j], rel[:, j], 6) for j in range(5)]) > 0.8


def test_grades_bin_rank_positions():
    scores = np.linspace(1, 0, 200)[:, None]  # strictly decreasing; the last token has score 0
    g = l2r.grades(scores)[:, 0]
    assert g[0] == 10 and g[1] == 10 and g[2] == 9  # top 1% of 200 = ranks 0, 1
    assert g[-1] == 0 and np.all(np.diff(g) <= 0)


def test_planted_attention_hand_computed():
    # 4 tokens x 2 labels; inattention k=2 keeps tokens {0, 1} for label 0 and {2, 3} for label 1
    table = np.array([[2.0, -1.0], [1.0, 0.0], [0.0, 3.0], [-1.0, 1.0]])
    kept = method.inattention(table, 2)
    assert np.isinf(kept[2, 0]) and np.isinf(kept[3, 0]) and np.isinf(kept[0, 1]) and np.isinf(kept[1, 1])
    ids = torch.tensor([[0, 1, 3, 0], [3, 3, 1, 1]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=torch.bool)
    a = method.planted_attention(torch.tensor(kept), ids, mask).numpy()
    e = math.e
    # doc 0, label 0: tokens 0 (score 2) and 1 (score 1) kept; token 3 dropped, position 3 padding
    np.testing.assert_allclose(a[0, :, 0], [e**2 / (e**2 + e), e / (e**2 + e), 0, 0], atol=1e-7)
    # doc 0, label 1: only token 3 (score 1) is kept
    np.testing.assert_allclose(a[0, :, 1], [0, 0, 1, 0], atol=1e-7)
    # doc 1, label 0: token 3 twice (dropped), the 1s are padding: nothing kept -> zero attention
    np.testing.assert_allclose(a[1, :, 0], [0, 0, 0, 0], atol=1e-7)
    np.testing.assert_allclose(a[1, :, 1], [0.5, 0.5, 0, 0], atol=1e-7)


def test_sparse_planted_logits_equal_the_dense_path():
    rng = np.random.default_rng(4)
    table = method.inattention(rng.normal(size=(12, 5)), 3)
    ids = torch.as_tensor(rng.integers(0, 12, size=(6, 7)))
    mask = torch.as_tensor(rng.random((6, 7)) < 0.8)
    H = torch.as_tensor(rng.normal(size=(6, 7, 4)), dtype=torch.float32)
    torch.manual_seed(0)
    model = method.Decoder(4, 3, 5, 0.5, table)
    planted = method.sparse_planted(table, ids.numpy(), mask.numpy(), chunk=4)
    docs = torch.tensor([4, 1, 5])
    dense = model(H[docs], ids[docs], mask[docs])
    sparse = model(H[docs], ids[docs], mask[docs], planted, docs)
    torch.testing.assert_close(sparse, dense, atol=1e-5, rtol=1e-5)


def test_p_zero_is_laat_and_p_one_uses_only_the_planted_attention():
    rng = np.random.default_rng(5)
    H = torch.as_tensor(rng.normal(size=(2, 4, 3)), dtype=torch.float32)
    ids, mask = torch.tensor([[0, 1, 2, 3]] * 2), torch.ones((2, 4), dtype=torch.bool)
    table = method.inattention(rng.normal(size=(4, 2)), 2)
    torch.manual_seed(0)
    laat = method.Decoder(3, 2, 2, 0.0, None)
    torch.manual_seed(0)
    full = method.Decoder(3, 2, 2, 1.0, table)
    z, a = full.attention(H, ids, mask)
    np.testing.assert_allclose(a.detach().numpy(), method.planted_attention(torch.tensor(table), ids, mask).numpy())
    z0, a0 = laat.attention(H, ids, mask)
    np.testing.assert_allclose(a0.sum(1).detach().numpy(), 1.0, atol=1e-6)


def test_metrics_on_a_small_case():
    Y = np.array([[1, 0, 1, 0], [0, 1, 0, 0]], dtype=np.float32)
    s = np.array([[0.9, 0.8, 0.1, 0.0], [0.2, 0.7, 0.6, 0.1]])
    assert metrics.precision_at(s, Y, 1) == pytest.approx(1.0)
    assert metrics.precision_at(s, Y, 2) == pytest.approx((1 + 1) / 4)
    assert metrics.ndcg_at(s, Y, 3) == pytest.approx(((1 + 1 / 2) / (1 + 1 / math.log2(3)) + 1.0) / 2)
    pred = (s >= 0.5).astype(np.float32)  # 4 predicted, 3 true, 2 hits
    assert metrics.micro_f1(pred, Y) == pytest.approx(2 * 2 / (4 + 3))
    f1 = metrics.label_f1(pred, Y)
    assert f1[0] == 1 and f1[1] == pytest.approx(2 / 3) and f1[2] == 0 and np.isnan(f1[3])
    assert metrics.macro_f1(pred, Y) == pytest.approx((1 + 2 / 3 + 0) / 3)


def test_dataset_split_keeps_labels_seen_in_train_and_test_and_counts_zero_shot():
    docs = [{"pmid": str(i), "text": f"doc {i}", "mesh": ["A"] + (["B"] if i % 2 else []) + ([f"Z{i}"])}
            for i in range(20)]
    out = data.build(docs, 20, (0.5, 0.2), rare_max=5, seed=0)
    splits = [d["split"] for d in out["docs"]]
    assert splits.count("train") == 10 and splits.count("dev") == 4 and splits.count("test") == 6
    assert out["labels"] == ["A", "B"]  # every Z_i is on one document only: zero-shot in test, excluded
    assert out["stats"]["zero_shot_test_labels_excluded"] == 6
    assert out["bins"][0] == "frequent" and out["train_counts"][0] == 10
    corpus = data.corpus(out)
    assert corpus.Y.shape == (20, 2) and corpus.Y[:, 0].all()
    with pytest.raises(UserError, match="n_docs"):
        data.build(docs, 21, (0.5, 0.2), 5, 0)
    # extra dev documents: the next ones of the same draw, after the 14; train, test and the labels stay
    base = data.build(docs, 14, (0.5, 0.2), rare_max=5, seed=0)
    more = data.build(docs, 14, (0.5, 0.2), rare_max=5, seed=0, extra_dev=4)
    assert more["docs"][:14] == base["docs"][:14] and more["labels"] == base["labels"]
    assert [d["split"] for d in more["docs"][14:]] == ["dev"] * 4
    assert more["stats"]["dev"] == base["stats"]["dev"] + 4 and more["stats"]["test"] == base["stats"]["test"]
    assert [d["pmid"] for d in more["docs"][14:]] == [d["pmid"] for d in out["docs"][14:18]]
    with pytest.raises(UserError, match="extra_dev"):
        data.build(docs, 14, (0.5, 0.2), 5, 0, extra_dev=7)
    with pytest.raises(UserError, match="malformed"):
        data.corpus({"labels": ["A"]})


def test_each_seed_draws_its_own_documents_and_split_and_the_same_seed_the_same():
    docs = [{"pmid": str(i), "text": f"doc {i}", "mesh": ["A", "B"][: 1 + i % 2]} for i in range(60)]
    draw = lambda seed: data.build(docs, 30, (0.5, 0.2), rare_max=5, seed=seed)  # noqa: E731
    a, again, b = draw(0), draw(0), draw(1)
    assert a == again and a["stats"]["seed"] == 0
    assert [d["pmid"] for d in a["docs"]] != [d["pmid"] for d in b["docs"]]
    train = lambda out: {d["pmid"] for d in out["docs"] if d["split"] == "train"}  # noqa: E731
    assert train(a) != train(b)


def test_planted_logits_equal_a_loop_over_the_entries_with_gradients():
    rng = np.random.default_rng(6)
    table = method.inattention(rng.normal(size=(10, 4)), 3)
    ids = torch.as_tensor(rng.integers(0, 10, size=(7, 5)))
    mask = torch.as_tensor(rng.random((7, 5)) < 0.8)
    planted = method.sparse_planted(table, ids.numpy(), mask.numpy(), chunk=3)
    docs = torch.tensor([5, 0, 3, 6])
    zb = torch.as_tensor(rng.normal(size=(4, 5, 4)), dtype=torch.float64).requires_grad_()
    got = method.planted_logits(zb, {k: v.double() if k == "weight" else v for k, v in planted.items()}, docs)
    want = torch.zeros(4, 4, dtype=torch.float64)
    weight = torch.zeros(4, 5, 4, dtype=torch.float64)   # d logit[b, l] / d zb[b, t, l]
    for b, d in enumerate(docs.tolist()):
        for e in range(int(planted["start"][d]), int(planted["start"][d + 1])):
            t, lab, w = int(planted["pos"][e]), int(planted["label"][e]), float(planted["weight"][e])
            want[b, lab] += w * float(zb.detach()[b, t, lab])
            weight[b, t, lab] += w
    torch.testing.assert_close(got.detach(), want)
    got.sum().backward()
    torch.testing.assert_close(zb.grad, weight)
    # and the weights are the planted attention: for each (doc, label), they sum to 1 or the label keeps no token
    dense = method.planted_attention(torch.tensor(table), ids[docs], mask[docs]).double()
    torch.testing.assert_close(weight, dense)


def test_a_batch_without_padding_skips_the_mask_with_the_same_logits_and_gradients():
    rng = np.random.default_rng(7)
    H = torch.as_tensor(rng.normal(size=(3, 5, 4)), dtype=torch.float32)
    ids = torch.as_tensor(rng.integers(0, 6, size=(3, 5)))
    for mask in (torch.ones((3, 5), dtype=torch.bool), torch.as_tensor(rng.random((3, 5)) < 0.7)):
        torch.manual_seed(0)
        model = method.Decoder(4, 3, 2, 0.0, None)
        out = model(H, ids, mask)
        out.sum().backward()
        z = torch.tanh(model.proj(H))
        ref = (torch.softmax((z @ model.u.T).masked_fill(~mask[..., None], -torch.inf), 1) * (z @ model.beta.T)).sum(1)
        ref = ref + model.bias
        grads = torch.autograd.grad(ref.sum(), [model.u, model.beta, model.proj.weight])
        assert torch.equal(out, ref)
        for g, p in zip(grads, [model.u, model.beta, model.proj.weight]):
            assert torch.equal(g, p.grad)
    assert method._pad_masked(out, torch.ones((3, 5), dtype=torch.bool)) is out

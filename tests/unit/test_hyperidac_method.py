"""HyperIDAC's head: output shapes, its reduction to the static classifier under a constant prior, the pseudo-label
fallback order, the prior regularisers."""

import numpy as np
import torch

from neurips26.papers.hyperidac.method import (
    HyperHead,
    StaticHead,
    history_vote,
    prior_regularisers,
    pseudo_labels,
)

K, FEAT, D, R = 5, 12, 3, 2


def _head(**options):
    torch.manual_seed(0)
    head = HyperHead(torch.randn(K, FEAT), tau=0.1, latent_domains=D, rank=R, hidden=8, **options)
    with torch.no_grad():  # random non-zero parameters everywhere (B and U start at zero)
        for p in head.parameters():
            p.copy_(torch.randn_like(p))
    return head


def test_output_shapes_and_generated_parameters():
    head, f = _head(), torch.randn(7, FEAT)
    logits, pi = head(f)
    assert logits.shape == (7, K) and pi.shape == (7, D)
    torch.testing.assert_close(pi.sum(1), torch.ones(7))
    weights, emb = head.parameters_for(f, pi)
    assert weights.shape == (7, FEAT, K) and emb.shape == (7, K, FEAT)
    # the forward pass equals the explicit formula f W(x) + b + cos(f, e_c(x)) / tau
    explicit = torch.einsum("nf,nfk->nk", f, weights) + head.base.bias + torch.einsum(
        "nf,nkf->nk", torch.nn.functional.normalize(f, dim=1), torch.nn.functional.normalize(emb, dim=2)) / 0.1
    torch.testing.assert_close(logits, explicit, rtol=1e-4, atol=1e-4)


def test_instance_specific_parameters_differ_between_inputs():
    head, f = _head(), torch.randn(2, FEAT)
    weights, _ = head.parameters_for(f, head.prior(f))
    assert not torch.allclose(weights[0], weights[1])


def test_constant_prior_reduces_to_the_static_classifier():
    head, f = _head(use_prior=False), torch.randn(9, FEAT)
    pi = torch.full((D,), 1.0 / D)
    static = head.collapse(pi)
    assert isinstance(static, StaticHead)
    torch.testing.assert_close(head(f)[0], static(f)[0], rtol=1e-5, atol=1e-4)
    # and with the learned prior the head is NOT that static classifier (the test can fail)
    learned = _head()
    assert not torch.allclose(learned(f)[0], learned.collapse(pi)(f)[0], atol=1e-3)


def test_any_constant_prior_collapses_not_only_the_uniform_one():
    head, f = _head(), torch.randn(4, FEAT)
    pi = torch.tensor([0.7, 0.2, 0.1])
    logits = head.base(f) + torch.einsum("nf,fk->nk", f, torch.einsum("d,dfr,drk->fk", pi, head.A, head.B))
    emb = head.prototypes + torch.einsum("kfd,d->kf", head.U, pi)
    logits = logits + torch.nn.functional.normalize(f, dim=1) @ torch.nn.functional.normalize(emb, dim=1).T / 0.1
    torch.testing.assert_close(head.collapse(pi)(f)[0], logits, rtol=1e-5, atol=1e-4)


def test_pseudo_label_fallback_order():
    probs = np.array([[0.9, 0.05, 0.05],    # confident teacher          -> level 1, teacher label 0
                      [0.5, 0.3, 0.2],      # unsure, history agrees (2) -> level 2, history label 2
                      [0.5, 0.3, 0.2],      # unsure, history split      -> level 3, zero-shot label 1
                      [0.95, 0.03, 0.02]])  # confident beats history and zero-shot -> level 1, label 0
    history = np.array([[1, 1, 1, 1, 1], [2, 2, 2, 2, 0], [0, 1, 2, 0, 1], [2, 2, 2, 2, 2]])
    zero_shot = np.array([2, 0, 1, 1])
    labels, level = pseudo_labels(probs, history, zero_shot, confidence=0.8, agreement=0.8)
    assert level.tolist() == [1, 2, 3, 1]
    assert labels.tolist() == [0, 2, 1, 0]
    # without history and fallback only the confident teacher labels remain (level 0 = no pseudo-label)
    _, level = pseudo_labels(probs, history, zero_shot, 0.8, 0.8, use_history=False, use_fallback=False)
    assert level.tolist() == [1, 0, 0, 1]
    # no history yet (-1): the unsure rows fall straight back to the zero-shot label
    labels, level = pseudo_labels(probs, np.full((4, 3), -1), zero_shot, 0.8, 0.8)
    assert level.tolist() == [1, 3, 3, 1] and labels.tolist() == [0, 0, 1, 0]


def test_history_vote_counts_missing_slots_against_the_share():
    vote, share = history_vote(np.array([[3, 3, -1, -1], [1, 2, 2, 2]]), 4)
    assert vote.tolist() == [3, 2]
    np.testing.assert_allclose(share, [0.5, 0.75])


def test_prior_regularisers_extremes():
    uniform_use = torch.eye(4)           # every sample one-hot, the domains equally used: balance 0, entropy 0
    balance, entropy = prior_regularisers(uniform_use)
    assert abs(balance.item()) < 1e-6 and abs(entropy.item()) < 1e-6
    collapsed = torch.tensor([[1.0, 0, 0, 0]] * 4)   # all on one domain: KL(mean || uniform) = log 4
    assert abs(prior_regularisers(collapsed)[0].item() - np.log(4)) < 1e-5

"""DebiasPL and its per-domain-cluster variant on a toy pool, and the evaluation model of every semi-supervised scheme
(issue #66 items 2 and 3)."""

import numpy as np
import pytest
import torch

from neurips26.common.pipeline.config import compose
from neurips26.papers.hyperidac import debias
from neurips26.papers.hyperidac.method import StaticHead
from neurips26.papers.hyperidac.training import SCHEMES, Split, train_semi


def _toy_pool():
    """Two domains (clusters), two classes. The global class marginal of the predictions is uniform (the DCI protocol's
    class totals), but within each domain it is skewed: domain 0 is mostly predicted class 0, domain 1 class 1."""
    # each row: logits of a sample; in domain 0, 8 samples lean strongly to class 0 and 2 are borderline (0.2 margin)
    strong0, border0 = [3.0, 0.0], [0.2, 0.0]
    strong1, border1 = [0.0, 3.0], [0.0, 0.2]
    logits = torch.tensor([strong0] * 8 + [border0] * 2 + [strong1] * 8 + [border1] * 2)
    clusters = torch.tensor([0] * 10 + [1] * 10)
    return logits, clusters


def _debiased_labels(logits, clusters, n_clusters: int) -> torch.Tensor:
    marginals = torch.full((n_clusters, 2), 0.5)
    probs = torch.softmax(logits, -1)
    for _ in range(500):  # the EMA converges to each cluster's mean prediction
        debias.update_marginals(marginals, probs, clusters, momentum=0.9)
    return debias.debiased_probs(logits, marginals[clusters].log(), strength=1.0).argmax(1)


def test_conditional_debiasing_changes_the_labels_of_a_skewed_domain_and_global_debiasing_cannot():
    logits, clusters = _toy_pool()
    self_training = logits.argmax(1)
    # published DebiasPL: one global marginal, uniform here, so its labels equal self-training's (the DCI no-op)
    global_labels = _debiased_labels(logits, torch.zeros_like(clusters), 1)
    assert torch.equal(global_labels, self_training)
    # per inferred domain: the borderline samples of each domain move to the domain's under-predicted class
    conditional = _debiased_labels(logits, clusters, 2)
    assert not torch.equal(conditional, self_training)
    changed = (conditional != self_training).nonzero().flatten().tolist()
    assert changed == [8, 9, 18, 19]


def test_the_adaptive_margin_raises_the_loss_of_a_frequent_class():
    logits = torch.tensor([[1.0, 1.0]])
    log_marginal = torch.tensor([[0.9, 0.1]]).log()
    adjusted = debias.margin_logits(logits, log_marginal, 1.0)
    # CE of class 0 (the frequent one) under the margin is larger than without it: its margin is demanded larger
    ce = torch.nn.functional.cross_entropy
    assert ce(adjusted, torch.tensor([0])) < ce(logits, torch.tensor([0]))  # z + log p_bar favours the frequent class
    assert ce(adjusted, torch.tensor([1])) > ce(logits, torch.tensor([1]))  # so the rare class's label costs more


def test_domain_clusters_are_recovered_on_separated_features():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 0.1, (20, 3)), rng.normal(5, 0.1, (20, 3))])
    labels = debias.domain_clusters(x, 2, seed=0)
    assert len(set(labels[:20])) == 1 and len(set(labels[20:])) == 1 and labels[0] != labels[-1]


def _split(seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.nn.functional.normalize(torch.randn(60, 6, generator=gen), dim=1)
    y = torch.arange(60) % 3
    return Split(
        x[:12],
        y[:12],
        x[12:],
        np.zeros(48, dtype=np.int64),
        y[12:].numpy(),
        y[12:].numpy(),
        (np.arange(48) % 2).astype(np.int64),
    )


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_scheme_returns_its_ema_teacher(scheme):
    cfg = compose("hyperidac", ["scale=tiny"])
    protos = torch.nn.functional.normalize(torch.randn(3, 6, generator=torch.Generator().manual_seed(1)), dim=1)
    head = StaticHead(protos, 0.1)
    start = [q.detach().clone() for q in head.parameters()]
    # a teacher that never moves (EMA decay 1) is the initial head: what comes back is the teacher, not the student
    frozen = train_semi(StaticHead(protos, 0.1), _split(), cfg, scheme, seed=0, ema=1.0)
    assert all(torch.equal(a, b) for a, b in zip(start, frozen.parameters()))
    moved = train_semi(StaticHead(protos, 0.1), _split(), cfg, scheme, seed=0)
    assert not all(torch.equal(a, b) for a, b in zip(start, moved.parameters()))


def test_fixmatch_uses_its_published_threshold_and_the_record_scores_pseudo_labels():
    cfg = compose("hyperidac", ["scale=tiny"])
    assert float(cfg.fixmatch.confidence) == 0.95
    protos = torch.nn.functional.normalize(torch.randn(3, 6, generator=torch.Generator().manual_seed(1)), dim=1)
    record = []
    train_semi(StaticHead(protos, 0.1), _split(), cfg, "fixmatch", seed=0, record=record)
    counts = {(r["epoch"], r["count"]): 0.0 for r in record}
    for r in record:
        counts[(r["epoch"], r["count"])] += r["value"]
    for epoch in range(int(cfg.train.epochs)):
        assert counts[(epoch, "n")] == 48
        assert counts[(epoch, "correct")] <= counts[(epoch, "assigned")] <= 48

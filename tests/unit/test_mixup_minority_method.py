"""The simplex ETF geometry, the layer-peeled model's positive control and collapse, and the long-tailed split."""

import numpy as np
import pytest
from omegaconf import OmegaConf

from neurips26.papers.mixup_minority import data, lpm
from neurips26.papers.mixup_minority.method import mean_pairwise_cosine, simplex_etf

LPM_CFG = OmegaConf.create({"dim": 24, "alpha": 1.0, "lambda_points": 4, "delta": 0.25, "init_scale": 0.1,
                            "etf_norm": 1.0, "wd_w": 5e-3, "wd_h": 5e-3, "lr": 1.0, "max_steps": 4000, "tol": 1e-7})


@pytest.mark.parametrize(("rows", "dim"), [(4, 3), (10, 64), (55, 54), (15, 20)])
def test_simplex_etf_geometry(rows, dim):
    etf = simplex_etf(rows, dim, seed=1)
    gram = etf @ etf.T
    assert np.allclose(np.diag(gram), 1.0)
    off = gram[~np.eye(rows, dtype=bool)]
    assert np.allclose(off, -1.0 / (rows - 1))
    assert np.allclose(etf.sum(0), 0.0, atol=1e-10)  # centred: the rows sum to zero
    assert mean_pairwise_cosine(etf) == pytest.approx(-1.0 / (rows - 1))


def test_simplex_etf_needs_enough_dimensions():
    with pytest.raises(ValueError, match="dim >= 9"):
        simplex_etf(10, 8)


def test_subset_of_an_etf_centred_is_a_smaller_etf():
    """Why MS's pure-class means can sit at -1/(K-1): K vertices of an M-simplex, centred, form a K-simplex."""
    etf = simplex_etf(15, 20, seed=0)[:5]
    assert mean_pairwise_cosine(etf - etf.mean(0)) == pytest.approx(-0.25)


@pytest.mark.parametrize("method", ["mixup_instance", "bmls", "ce"])
def test_layer_peeled_model_at_ratio_one_sits_at_the_etf(method):
    """Positive control: balanced classes give a simplex ETF classifier and class means (Papyan et al.)."""
    out = lpm.solve(lpm.LPM_METHODS[method], lpm.step_counts(6, 1.0), LPM_CFG, seed=0)
    assert out["minority_w_cos"] == pytest.approx(-0.2, abs=0.01)
    assert out["minority_mean_cos"] == pytest.approx(-0.2, abs=0.01)


def test_instance_mixup_collapses_and_bmls_does_not_at_high_imbalance():
    counts = lpm.step_counts(6, 1000.0)
    collapsed = lpm.solve(lpm.LPM_METHODS["mixup_instance"], counts, LPM_CFG, seed=0)
    balanced = lpm.solve(lpm.LPM_METHODS["bmls"], counts, LPM_CFG, seed=0)
    assert collapsed["minority_w_cos"] > 0.5
    assert balanced["minority_w_cos"] == pytest.approx(-0.2, abs=0.02)


def test_lpm_gradient_matches_finite_differences():
    """The closed-form GD direction is the gradient of the objective (checked on the learned classifier)."""
    method = lpm.LPM_METHODS["mixup_instance"]
    counts = lpm.step_counts(4, 10.0)
    a, b, lam, weight, target = lpm.groups(method, counts, 1.0, 2, 0.25)
    rng = np.random.default_rng(0)
    h, w = rng.standard_normal((len(a), 3)), rng.standard_normal((4, 3))

    def objective(w):
        logits = h @ w.T
        logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        return float((weight * -(target * logp).sum(1)).sum())

    logits = h @ w.T
    p = np.exp(logits - np.log(np.exp(logits).sum(1, keepdims=True)))
    grad = (weight[:, None] * (p - target)).T @ h
    eps = 1e-6
    numeric = np.zeros_like(w)
    for idx in np.ndindex(*w.shape):
        step = np.zeros_like(w)
        step[idx] = eps
        numeric[idx] = (objective(w + step) - objective(w - step)) / (2 * eps)
    assert np.allclose(grad, numeric, atol=1e-6)


def test_long_tailed_counts_follow_the_exponential_profile():
    counts = data.long_tailed_counts(10, 1000, 100)
    assert counts[0] == 1000 and counts[-1] == 10
    assert np.all(np.diff(counts) <= 0)
    assert counts[5] == int(1000 * 100 ** (-5 / 9))
    assert np.all(data.long_tailed_counts(10, 500, 1) == 500)


def test_long_tailed_indices_and_balanced_test():
    labels = np.repeat(np.arange(4), 50)
    rng = np.random.default_rng(0)
    idx = data.long_tailed_indices(labels, np.array([50, 20, 5, 1]), rng)
    assert np.bincount(labels[idx]).tolist() == [50, 20, 5, 1]
    assert len(np.unique(idx)) == len(idx)
    test = data.balanced_test(labels, 7, rng)
    assert np.bincount(labels[test]).tolist() == [7, 7, 7, 7]
    with pytest.raises(Exception, match="class 0 has 50 pool images"):
        data.long_tailed_indices(labels, np.array([60, 1, 1, 1]), rng)


def test_class_groups_split_head_medium_tail():
    groups = data.class_groups(10)
    assert groups["head"].tolist() == [0, 1, 2]
    assert groups["medium"].tolist() == [3, 4, 5, 6]
    assert groups["tail"].tolist() == [7, 8, 9]


def test_models_and_heads_have_the_right_shapes():
    import torch

    from neurips26.papers.mixup_minority.training import build_model

    cfg = OmegaConf.create({"model": {"name": "resnet32", "dim": 64}})
    net = build_model((3, 32, 32), 10, "ms", cfg, seed=0)
    assert net(torch.zeros(2, 3, 32, 32)).shape == (2, 55)
    assert net.etf.shape == (55, 64)
    wide = build_model((3, 32, 32), 20, "ms", cfg, seed=0)  # 210 singletons need 209 dimensions
    assert wide.etf.shape == (210, 209)
    small = build_model((1, 14, 14), 10, "linear", OmegaConf.create({"model": {"name": "small_cnn", "dim": 64}}), 0)
    assert small(torch.zeros(2, 1, 14, 14)).shape == (2, 10)

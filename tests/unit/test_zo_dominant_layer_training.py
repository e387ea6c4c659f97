"""The training path (training.py, sweep.py) on the small decoder: the sweep covers every layer (scale=long's design
in a tiny form), the two timings the speed-up compares run one forward function, every method gets the same forward
passes, the test accuracy is the best dev checkpoint's and every run leaves the weights as it found them."""

import numpy as np
import pytest
import torch

from neurips26.common.models.llm import encode_left_padded, label_token_ids
from neurips26.common.pipeline.config import compose
from neurips26.papers.zo_dominant_layer import data, models, sweep, training


def task(n_train=16, n_dev=8, n_test=8) -> data.Task:
    words = ["negative", "positive"]
    n = n_train + n_dev + n_test
    prompts = [f"Review: word{i} other{i % 5} and {'good' if i % 2 else 'bad'}\nSentiment:" for i in range(n)]
    return data.Task("imdb", words, prompts, np.array([i % 2 for i in range(n)]), n_train, n_dev)


def long_tiny(**train):
    """scale=long's design (every layer, every method, its grids) with the small decoder and a few steps."""
    cfg = compose("zo_dominant_layer", ["scale=long"])
    cfg.train.model = "small_decoder"
    cfg.small_decoder.layers = 4
    cfg.tasks.max_tokens = 16
    for key, value in {"zo_steps": 2, "eval_every": 1, "timing_steps": 1, "batch": 4, **train}.items():
        cfg.train[key] = value
    return cfg


def test_long_runs_smollm2_on_three_tasks_three_seeds_with_every_method():
    cfg = compose("zo_dominant_layer", ["scale=long"])
    assert cfg.train.model == "smollm2" and cfg.long_design is True and list(cfg.seeds) == [0, 1, 2]
    assert len(cfg.tasks.names) == 3 and {"zo_full", "zo_lora", "fo_lstar"} <= set(cfg.train.methods)
    assert len({len(cfg.train.lr[m]) for m in cfg.train.lr}) == 1  # every method's grid has the same size


def test_the_sweep_covers_every_layer_and_every_method_in_the_tiny_form_of_long():
    cfg = long_tiny()
    runs, curves = sweep.run(cfg, task(), seed=0)
    layers = runs[runs.method == "zo_layer"]
    assert sorted(layers.layer.unique()) == list(range(4))
    assert (layers.groupby("layer").size() == len(cfg.train.lr.layer)).all()
    assert (runs[runs.chosen].groupby(["method", "layer"]).size() == 1).all()  # one chosen lr per run
    assert set(runs.method) == {"zo_layer", *cfg.train.methods}
    assert runs.l_star.iloc[0] == cfg.small_decoder.plant_layer  # the detector on the training model
    assert set(curves.method) == set(runs.method) - {"zo_lstar_cached"}


def test_both_speed_timings_use_one_forward_and_only_the_cached_variant_starts_at_lstar(monkeypatch):
    """Every training loss of the sweep and of full-model MeZO runs from layer 0 (the full forward); the prefix-cached
    variant, a separate row, is the only one that starts at l*."""
    starts = []
    loss = models.Runner.loss

    def spy(self, y, start=0, rows=None, grad=False):
        starts.append(start)
        return loss(self, y, start, rows, grad)

    monkeypatch.setattr(models.Runner, "loss", spy)
    cfg = long_tiny(timing_steps=3)
    sweep.run(cfg, task(), seed=0)
    lstar = cfg.small_decoder.plant_layer
    assert set(starts) == {0, lstar}
    assert starts.count(lstar) == 2 * 3 and starts[-6:] == [lstar] * 6  # the timing run, last: 3 MeZO steps


def runner_and_split(seed=0):
    cfg = long_tiny()
    tokenizer, model = models.small_decoder(cfg.small_decoder, seed)
    t = task()
    ids, mask, _ = encode_left_padded(tokenizer, t.prompts, 16)
    runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, t.words))
    y = torch.as_tensor(t.y)
    split = training.Split(np.arange(16), torch.arange(16, 24), torch.arange(24, 32), y)
    return model, runner, split


def test_every_method_gets_the_same_forward_passes_and_the_weights_are_restored():
    model, runner, split = runner_and_split()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    pretrained = training.evaluate(runner, split.y, split.dev)
    common = {"eps": 1e-3, "zo_steps": 6, "batch": 4, "eval_every": 2, "seed": 0, "pretrained": pretrained,
              "min_delta": 0.01}
    params = list(model.model.layers[1].parameters())
    zo, zo_curve = training.run(runner, split, params, lr=1e-2, **common)
    fo, fo_curve = training.run(runner, split, params, lr=1e-2, first_order=True, **common)
    assert zo["forward_passes"] == fo["forward_passes"] == 12 and (zo["steps"], fo["steps"]) == (6, 12)
    assert [r["forward_passes"] for r in zo_curve] == [r["forward_passes"] for r in fo_curve] == [0, 4, 8, 12]
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_the_test_accuracy_is_the_best_dev_checkpoints(monkeypatch):
    """With an lr that wrecks the layer, the best dev checkpoint is the pretrained one: the run returns its test
    accuracy, not the wrecked model's."""
    model, runner, split = runner_and_split()
    pretrained = training.evaluate(runner, split.y, split.dev)
    pretrained_test = training.evaluate(runner, split.y, split.test)
    evaluate = training.evaluate

    def spy(runner_, y, rows, start=0, chunk=64):
        out = evaluate(runner_, y, rows, start, chunk)
        return (out[0], -1.0) if int(rows[0]) == int(split.dev[0]) else out  # dev never improves

    monkeypatch.setattr(training, "evaluate", spy)
    summary, _ = training.run(runner, split, list(model.model.layers[1].parameters()), lr=10.0, eps=1e-3, zo_steps=4,
                              batch=4, eval_every=2, seed=0, pretrained=pretrained, min_delta=0.01)
    assert summary["best_forward_passes"] == 0
    assert (summary["test_loss"], summary["test_acc"]) == pytest.approx(pretrained_test)  # the loss: continuous
    wrecked, _ = training.run(runner, split, list(model.model.layers[1].parameters()), lr=10.0, eps=1e-3, zo_steps=4,
                              batch=4, eval_every=2, seed=0, pretrained=(pretrained[0], -2.0), min_delta=0.01)
    assert wrecked["best_forward_passes"] == 4 and wrecked["test_loss"] != pytest.approx(pretrained_test[0])


def test_the_plateau_rule():
    flat = [{"dev_acc": a} for a in (0.5, 0.7, 0.71, 0.71)]
    rising = [{"dev_acc": a} for a in (0.5, 0.55, 0.6, 0.7)]
    assert training.plateaued(flat, 0.02) and not training.plateaued(rising, 0.02)

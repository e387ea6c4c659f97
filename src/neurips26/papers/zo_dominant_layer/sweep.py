"""One training job per (task, seed): MeZO on every decoder layer alone (the layer sweep), full-model MeZO, MeZO on
LoRA adapters and first-order Adam on l* (the reference), each over its own lr grid on the dev split with equal forward
passes; and the prefix-cached single-layer variant, timed only.

Every single-layer run uses the full forward (the layers below it are recomputed every step), as full-model MeZO and
LoRA do, so the sweep's seconds per step at l* and full MeZO's are timed on one forward function (`Runner.logits` from
layer 0). The prefix-cached variant (`zo_lstar_cached`: the forward starts at l* on the frozen residual stream below
it) is a separate, labelled row; no claim reads it. The dominant layer is the sweep's argmax of test accuracy; l*
(the detector) is computed here on the same model and dev prompts, so each job's rows are self-contained.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from neurips26.common.models.device import resolve_device
from neurips26.common.models.llm import encode_left_padded, label_token_ids
from neurips26.common.pipeline.seed_streams import derived_seed
from neurips26.papers.zo_dominant_layer import lora, method, models, training
from neurips26.papers.zo_dominant_layer.experiments import PhaseTimer, init_seed, layer_params

METHODS = ("zo_layer", "zo_full", "zo_lora", "fo_lstar", "zo_lstar_cached")


def detect(runner, rows, cfg) -> int:
    """l* of the loaded model from the residual stream of `rows` (inference only)."""
    runner.cache_inputs(range(runner.n_layers))
    states = [runner.cache[i][rows] for i in range(runner.n_layers)] + [runner.output[rows]]
    profile = method.outlier_profile(states, runner.mask[rows])
    return method.first_outlier_layer(profile, float(cfg.detector.ratio_min), float(cfg.detector.abs_min))


def random_layer(n_layers: int, l_star: int, seed: int) -> int:
    """A layer drawn by the run seed, not within one of l* (the random-layer baseline, read from the sweep)."""
    others = [i for i in range(n_layers) if abs(i - l_star) > 1] or list(range(n_layers))
    return int(np.random.default_rng(derived_seed(seed, "random_layer")).choice(others))


def run(cfg, task, seed: int, model_dir=None, root=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, curves) of one task x seed: runs has one row per method x layer x lr (`chosen` marks the lr picked on
    dev); curves one row per evaluation of every run."""
    tick = PhaseTimer()
    t = cfg.train
    device = resolve_device(str(cfg.device))
    tokenizer, model = models.load(str(t.model), cfg, seed=init_seed(seed), folder=model_dir, root=root)
    model.to(device)
    for p in model.parameters():
        p.requires_grad_(False)
    ids, mask, _ = encode_left_padded(tokenizer, task.prompts, int(cfg.tasks.max_tokens))
    runner = models.Runner(model, ids.to(device), mask.to(device), label_token_ids(tokenizer, task.words))
    y = torch.as_tensor(task.y, device=device)
    split = training.Split(np.arange(task.n_train), torch.arange(task.n_train, task.n_train + task.n_dev),
                           torch.arange(task.n_train + task.n_dev, len(task.y)), y)
    n_layers = runner.n_layers
    l_star = detect(runner, split.dev, cfg)
    target = l_star if l_star >= 0 else 0  # the reference runs need a layer; a missing l* stays -1 in the rows
    tick(f"load, detector (l* = {l_star})")
    pretrained = training.evaluate(runner, y, split.dev)
    pretrained_test = training.evaluate(runner, y, split.test)[1]
    common = {"zo_steps": int(t.zo_steps), "batch": int(t.batch), "eval_every": int(t.eval_every), "seed": seed,
              "pretrained": pretrained, "min_delta": float(t.plateau_delta)}
    rows, curves = [], []

    def record(name, layer, grid_rows, grid_curves):
        rows.extend({"method": name, "layer": layer, **r} for r in grid_rows)
        curves.extend({"method": name, "layer": layer, **c} for c in grid_curves)

    for layer in range(n_layers):  # the sweep: every layer alone, full forward
        record("zo_layer", layer, *training.grid(runner, split, lambda layer=layer: layer_params(model, layer),
                                                 t.lr.layer, eps=float(t.eps), **common))
        tick(f"sweep layer {layer}")
    if "zo_full" in t.methods:
        record("zo_full", -1, *training.grid(runner, split, lambda: list(model.parameters()), t.lr.full,
                                             eps=float(t.eps), **common))
        tick("full-model MeZO")
    if "zo_lora" in t.methods:
        def adapters():
            made = lora.add_lora(model.model.layers, int(cfg.lora.rank), float(cfg.lora.alpha), seed)
            return made, lambda: lora.remove_lora(model.model.layers)

        record("zo_lora", -1, *training.grid(runner, split, adapters, t.lr.lora, eps=float(t.lora_eps), **common))
        tick("LoRA MeZO")
    if "fo_lstar" in t.methods:
        record("fo_lstar", target, *training.grid(runner, split, lambda: layer_params(model, target), t.lr.first_order,
                                                  eps=float(t.eps), first_order=True, **common))
        tick("first-order l*")
    if "zo_lstar_cached" in t.methods:  # timing only: the chosen lr of the sweep at l*, on the cached prefix
        lr = next(r["lr"] for r in rows if r["method"] == "zo_layer" and r["layer"] == target and r["chosen"])
        summary, _ = training.run(runner, split, layer_params(model, target), lr=lr, eps=float(t.eps), start=target,
                                  **{**common, "zo_steps": int(t.timing_steps), "eval_every": int(t.timing_steps)})
        rows.append({"method": "zo_lstar_cached", "layer": target, **summary, "chosen": True})
        tick("prefix-cached l* (timing)")
    meta = {"model": str(t.model), "task": task.name, "seed": seed, "l_star": l_star, "n_layers": n_layers,
            "random_layer": random_layer(n_layers, target, seed), "pretrained_test_acc": pretrained_test}
    return pd.DataFrame(rows).assign(**meta), pd.DataFrame(curves).assign(**meta)

"""Pilot (issue #55 item 4): seconds per step of each training method on SmolLM2-135M on this CPU, batch 16 prompts of
<= 32 tokens (one thread, as a pipeline job), to size scale=long. Seed 900 (outside every configured seed set); the
imdb prompts. Usage: python -m neurips26.papers.zo_dominant_layer.pilots.step_time <data/raw/ensemble_mi_imdb> [reps]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch

from neurips26.common.models.llm import encode_left_padded, label_token_ids, load_smollm2
from neurips26.common.pipeline.config import compose
from neurips26.papers.zo_dominant_layer import data, lora, method, models, training
from neurips26.papers.zo_dominant_layer.experiments import layer_params

SEED = 900


def timed(fn, reps: int) -> float:
    fn()  # warm-up
    tick = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - tick) / reps


def main(folder: str, reps: int = 3) -> None:
    torch.set_num_threads(1)
    cfg = compose("zo_dominant_layer", ["scale=long"])
    task = data.load_task("imdb", Path(folder), cfg, SEED)
    tokenizer, model = load_smollm2()
    for p in model.parameters():
        p.requires_grad_(False)
    ids, mask, _ = encode_left_padded(tokenizer, task.prompts, int(cfg.tasks.max_tokens))
    runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, task.words))
    y = torch.as_tensor(task.y)
    rows = torch.as_tensor(np.arange(16))
    lstar = 11  # SmolLM2's l* on every task and seed of the earlier default runs (JOURNAL.md)
    runner.cache_inputs([lstar])
    out = {}

    def zo(params, start=0):
        return lambda: method.mezo_step(params, lambda: runner.loss(y, start, rows), 1e-3, 0.0, 1)

    out["zo_layer (full forward)"] = timed(zo(layer_params(model, lstar)), reps)
    out["zo_lstar_cached"] = timed(zo(layer_params(model, lstar), lstar), reps)
    out["zo_full"] = timed(zo(list(model.parameters())), reps)
    adapters = lora.add_lora(model.model.layers, 8, 16, 0)
    out["zo_lora"] = timed(zo(adapters), reps)
    lora.remove_lora(model.model.layers)

    def fo():
        params = layer_params(model, lstar)
        for p in params:
            p.requires_grad_(True)
        runner.loss(y, 0, rows, grad=True).backward()
        for p in params:
            p.requires_grad_(False)
            p.grad = None

    out["fo_lstar (one Adam step's forward + backward)"] = timed(fo, reps)
    dev = torch.arange(task.n_train, task.n_train + task.n_dev)
    out[f"dev evaluation ({len(dev)} prompts)"] = timed(lambda: training.evaluate(runner, y, dev), 1)
    for name, seconds in out.items():
        print(f"{name}: {seconds:.2f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3)

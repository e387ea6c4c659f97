"""The second model family for "model-specific": the detector on the bundled all-MiniLM-L6-v2 encoder (common/models/minilm,
6 post-LN BERT layers), on the same dev prompts as SmolLM2 (one job per run seed: the seed draws the split).
Inference only: the residual stream after each layer (transformers' hidden states; index 0 the embeddings),
r_l = max|h_l| / median|h_l| over real tokens, and the first layer holding a massive activation by the same thresholds
as for SmolLM2."""

from __future__ import annotations

import pandas as pd

from neurips26.papers.zo_dominant_layer import method


def minilm_profile(cfg, tasks) -> pd.DataFrame:
    """Per task x layer (0-based, the output of encoder layer l): ratio, max|h|, median|h|, where the max sits, l*."""
    import torch

    from neurips26.common.models.minilm import load_minilm

    tokenizer, model = load_minilm()
    frames = []
    for task in tasks:
        prompts = task.prompts[task.n_train:task.n_train + task.n_dev]  # the dev prompts, as for SmolLM2's detector
        enc = tokenizer(prompts, padding=True, truncation=True, max_length=int(cfg.tasks.max_tokens) + 2,
                        return_tensors="pt")
        with torch.inference_mode():
            states = model(**enc, output_hidden_states=True).hidden_states
        profile = method.outlier_profile(states, enc["attention_mask"])
        l_star = method.first_outlier_layer(profile, float(cfg.detector.ratio_min), float(cfg.detector.abs_min))
        frame = pd.DataFrame(profile)
        frame = frame[frame.state > 0].assign(layer=lambda f: f.state - 1).drop(columns="state")
        frames.append(frame.assign(model="minilm", task=task.name, l_star=l_star, n_layers=len(states) - 1))
    return pd.concat(frames, ignore_index=True)


def decoder_profile(cfg, tasks, root) -> pd.DataFrame:
    """The same per task x layer profile on a second decoder family from the hub (second_model: a key of hub_models,
    scale=paper: Qwen3-8B beside Llama-2-7B): the residual stream at each layer's input and the last layer's output,
    as the probe reads it on the first model (experiments.run)."""
    import torch

    from neurips26.common.models.device import resolve_device
    from neurips26.common.models.llm import encode_left_padded, label_token_ids
    from neurips26.papers.zo_dominant_layer import models

    name = str(cfg.second_model)
    tokenizer, model = models.load(name, cfg, root=root)
    device = resolve_device(str(cfg.device))
    model.to(device)
    frames = []
    for task in tasks:
        prompts = task.prompts[task.n_train:task.n_train + task.n_dev]
        ids, mask, _ = encode_left_padded(tokenizer, prompts, int(cfg.tasks.max_tokens))
        ids, mask = ids.to(device), mask.to(device)
        runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, task.words))
        with torch.no_grad():
            runner.cache_inputs(range(runner.n_layers))
        states = [runner.cache[i] for i in range(runner.n_layers)] + [runner.output]
        profile = method.outlier_profile(states, mask)
        l_star = method.first_outlier_layer(profile, float(cfg.detector.ratio_min), float(cfg.detector.abs_min))
        frame = pd.DataFrame(profile)
        frame = frame[frame.state > 0].assign(layer=lambda f: f.state - 1).drop(columns="state")
        frames.append(frame.assign(model=name, task=task.name, l_star=l_star, n_layers=runner.n_layers))
    return pd.concat(frames, ignore_index=True)


def profile(cfg, tasks, root) -> pd.DataFrame:
    """The second family's profile: the MiniLM encoder (default) or a hub decoder (second_model names it)."""
    return minilm_profile(cfg, tasks) if str(cfg.get("second_model", "minilm")) == "minilm" else \
        decoder_profile(cfg, tasks, root)

"""One job per (model, task, seed): detector, per-layer ZO signal, perturbation propagation, short MeZO runs.

1. Outlier profile of the residual stream on the held-out prompts -> l* (inference only).
2. Per-layer ZO signal. A MeZO step on a parameter set S moves the held-out loss by -lr * g (z . g_E) to first order,
   with g = z . g_B the projected minibatch gradient. Its mean over z and minibatches is g_B . g_E (the expected
   descent); its second moment is E_B[2 (g_B . g_E)^2 + |g_B|^2 |g_E|^2] (Gaussian z), so the step's signal-to-noise
   ratio follows from the layer's minibatch and held-out gradients. Backprop is the measuring instrument here (one
   backward pass gives every layer); the ZO steps themselves never use it.
3. Propagation: |logits(theta_l + eps z) - logits(theta_l - eps z)| / (2 eps) for MeZO's own z on layer l (forward
   only, from the cached residual stream below l), and the projected gradient of those two forwards.
4. Short MeZO runs (l*, a random layer, full model, LoRA) and first-order Adam on l*: held-out loss and accuracy
   before/after, seconds per step, perturbed parameters. Steps stop by a plateau rule or at max_steps.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
import torch

from neurips26.common.models import optim
from neurips26.common.models.device import resolve_device
from neurips26.common.models.llm import encode_left_padded, label_token_ids
from neurips26.common.pipeline.seed_streams import derived_seed
from neurips26.papers.zo_dominant_layer import lora, method, models


def layer_params(model, layer: int) -> list[torch.nn.Parameter]:
    """The parameters of decoder layer `layer` (0-based)."""
    return list(model.model.layers[layer].parameters())


def _backward(model, runner, y, rows) -> None:
    model.zero_grad(set_to_none=True)
    runner.loss(y, 0, rows, grad=True).backward()


def zo_signal(model, runner, y, train_rows, eval_rows, n_batches, batch, rng) -> pd.DataFrame:
    """Per layer (and layer -1: the full model): expected held-out descent per unit lr of a MeZO step, its SNR, and
    gradient norms. Dot products are summed parameter by parameter (no flattened copies of the gradients)."""
    n_layers = runner.n_layers
    owner = {}  # parameter name -> layer index (embeddings and the final norm belong to the full model only)
    for name, _ in model.named_parameters():
        parts = name.split(".")
        owner[name] = int(parts[parts.index("layers") + 1]) if "layers" in parts else None
    for p in model.parameters():
        p.requires_grad_(True)
    _backward(model, runner, y, eval_rows)
    g_eval = {name: p.grad.detach().clone() for name, p in model.named_parameters()}
    stats = {k: [] for k in range(n_layers + 1)}  # index n_layers: the full model
    for _ in range(n_batches):
        _backward(model, runner, y, torch.as_tensor(rng.choice(train_rows, batch, replace=False)))
        sums = np.zeros((n_layers + 1, 3))
        for name, p in model.named_parameters():
            gb, ge = p.grad, g_eval[name]
            terms = np.array([float((gb * ge).sum()), float((gb * gb).sum()), float((ge * ge).sum())])
            sums[n_layers] += terms
            if owner[name] is not None:
                sums[owner[name]] += terms
        for k in range(n_layers + 1):
            stats[k].append(sums[k])
    model.zero_grad(set_to_none=True)
    for p in model.parameters():
        p.requires_grad_(False)
    rows = []
    for k, values in stats.items():
        dot, nb, ne = np.array(values).T
        descent = dot.mean()
        second = (2 * dot**2 + nb * ne).mean()
        rows.append({"layer": k if k < n_layers else -1, "descent": descent,
                     "snr": descent / np.sqrt(max(second - descent**2, 1e-300)),
                     "grad_norm_eval": float(np.sqrt(ne.mean())), "grad_norm_batch": float(np.sqrt(nb.mean()))})
    return pd.DataFrame(rows)


def propagation(model, runner, y, layers, rows, eps, draws, seed) -> pd.DataFrame:
    out = []
    for layer in layers:
        params = layer_params(model, layer)
        moves, projections = [], []
        for d in range(draws):
            z_seed = seed * 100_003 + layer * 1_009 + d
            method.perturb(params, z_seed, eps)
            plus = runner.logits(layer, rows)
            method.perturb(params, z_seed, -2 * eps)
            minus = runner.logits(layer, rows)
            method.perturb(params, z_seed, eps)
            moves.append(float((plus - minus).norm(dim=1).mean()) / (2 * eps))
            ce = torch.nn.functional.cross_entropy
            projections.append((float(ce(plus, y[rows])) - float(ce(minus, y[rows]))) / (2 * eps))
        out.append({"layer": layer, "propagation": float(np.mean(moves)),
                    "zo_proj_rms": float(np.sqrt(np.mean(np.square(projections))))})
    return pd.DataFrame(out)


def device_of(params) -> str:
    return params[0].device.type


def evaluate(runner, y, rows, start: int = 0) -> tuple[float, float]:
    """Held-out (loss, accuracy), computed from layer `start` on the cached residual stream below it (valid while
    the layers below `start` are untouched)."""
    with torch.no_grad():
        logits = runner.logits(start, rows)
    return float(torch.nn.functional.cross_entropy(logits, y[rows])), float((logits.argmax(1) == y[rows]).float().mean())


def train(model, runner, y, spec, train_rows, eval_rows, params, start, rng, seed, first_order=False,
          before: tuple[float, float] | None = None, max_steps: int | None = None) -> dict:
    """MeZO (or Adam when first_order) on `params` with minibatches from train_rows; plateau rule on held-out loss.
    `before`: the held-out (loss, accuracy) of the starting weights, when already known; `max_steps`: overrides
    spec.max_steps. Only the layers from `start` up change, so evaluations start there on the cached prefix."""
    loss0, acc0 = before if before is not None else evaluate(runner, y, eval_rows, start)
    best, waited, steps, elapsed = loss0, 0, 0, 0.0
    last = None  # the held-out evaluation at the current step, if one was made
    optimizer = optim.Adam(params, lr=float(spec.fo_lr)) if first_order else None
    for step in range(int(spec.max_steps if max_steps is None else max_steps)):
        rows = torch.as_tensor(rng.choice(train_rows, int(spec.batch), replace=False))
        if device_of(params) == "cuda":
            torch.cuda.synchronize()
        tick = time.perf_counter()
        if first_order:
            for p in params:
                p.requires_grad_(True)
            optimizer.zero_grad()
            runner.loss(y, start, rows, grad=True).backward()
            optimizer.step()
            for p in params:
                p.requires_grad_(False)
        else:
            method.mezo_step(params, lambda rows=rows: runner.loss(y, start, rows), float(spec.eps), float(spec.lr),
                             seed * 1_000_003 + step)
        if device_of(params) == "cuda":
            torch.cuda.synchronize()
        elapsed += time.perf_counter() - tick
        steps = step + 1
        last = None
        if steps % int(spec.eval_every) == 0:
            last = evaluate(runner, y, eval_rows, start)
            loss = last[0]
            if loss < best - float(spec.min_delta):
                best, waited = loss, 0
            else:
                waited += 1
                if waited >= int(spec.patience):
                    break
    loss1, acc1 = last if last is not None else evaluate(runner, y, eval_rows, start)
    return {"steps": steps, "s_per_step": elapsed / max(steps, 1), "loss_before": loss0, "loss_after": loss1,
            "acc_before": acc0, "acc_after": acc1, "params": sum(p.numel() for p in params)}


class PhaseTimer:
    """Wall seconds per phase of a job, printed to stderr (the rule's log)."""

    def __init__(self):
        self.last = time.perf_counter()

    def __call__(self, phase: str) -> None:
        now = time.perf_counter()
        print(f"[zo_dominant_layer] {phase}: {now - self.last:.1f} s", file=sys.stderr, flush=True)
        self.last = now


def init_seed(seed: int) -> int:
    """The small decoder's initialisation seed of the run with this seed (seed stream "model_init")."""
    return derived_seed(seed, "model_init")


def run(cfg, model_name: str, task, seed: int, model_dir=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(layers frame, methods frame) of one model x task x seed; model_dir: an exported SmolLM2 (fast load)."""
    tick = PhaseTimer()
    rng = np.random.default_rng(seed)
    device = resolve_device(str(cfg.device))
    # the small decoder's random weights (tiny scale) follow the run seed; SmolLM2's are pretrained
    tokenizer, model = models.load(model_name, cfg, seed=init_seed(seed), folder=model_dir)
    model.to(device)
    for p in model.parameters():
        p.requires_grad_(False)
    ids, mask, _ = encode_left_padded(tokenizer, task.prompts, int(cfg.tasks.max_tokens))
    ids, mask = ids.to(device), mask.to(device)
    runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, task.words))
    y = torch.as_tensor(task.y, device=device)
    n_layers = runner.n_layers
    train_rows = np.arange(task.n_train)
    eval_rows = torch.arange(task.n_train, len(task.y))
    tick("load model, tokenise")
    runner.cache_inputs(range(n_layers))
    tick("cache residual stream")

    # 1. detector (inference only), on the held-out prompts
    states = [runner.cache[i][eval_rows] for i in range(n_layers)] + [runner.output[eval_rows]]
    profile = pd.DataFrame(method.outlier_profile(states, mask[eval_rows]))
    detector = cfg.detector
    l_star = method.first_outlier_layer(profile.to_dict("records"), float(detector.ratio_min), float(detector.abs_min))
    profile = profile[profile.state > 0].assign(layer=lambda f: f.state - 1).drop(columns="state")

    tick("detector")
    # 2. per-layer ZO signal (all layers), 3. propagation (a subset, always l* and its neighbours)
    spec = cfg.signal
    signal = zo_signal(model, runner, y, train_rows, eval_rows, int(spec.batches), int(spec.batch), rng)
    tick("zo signal (all layers)")
    chosen = set(range(0, n_layers, int(cfg.propagation.stride))) | {n_layers - 1}
    if l_star >= 0:
        chosen |= {i for i in (l_star - 1, l_star, l_star + 1) if 0 <= i < n_layers}
    prop_rows = eval_rows[: int(cfg.propagation.examples)]
    prop = propagation(model, runner, y, sorted(chosen), prop_rows, float(cfg.zo.eps), int(cfg.propagation.draws), seed)
    tick(f"propagation ({len(chosen)} layers)")
    layers = signal.merge(profile, on="layer", how="left").merge(prop, on="layer", how="left")

    # 4. short MeZO runs; every run starts from the pretrained weights (restored after it)
    target = l_star if l_star >= 0 else int(signal[signal.layer >= 0].sort_values("snr").layer.iloc[-1])
    others = [i for i in range(n_layers) if abs(i - target) > 1]
    random_layer = int(rng.choice(others)) if others else target
    runs = []
    pretrained = evaluate(runner, y, eval_rows, n_layers - 1)  # the last layer on the cached stream below it
    tick("pretrained evaluation")
    for name in cfg.methods:
        lora_params = None
        if name == "zo_lstar":
            params, start = layer_params(model, target), target
        elif name == "zo_random":
            params, start = layer_params(model, random_layer), random_layer
        elif name == "zo_full":
            params, start = list(model.parameters()), 0
        elif name == "zo_lora":
            lora_params = lora.add_lora(model.model.layers, int(cfg.lora.rank), float(cfg.lora.alpha), seed)
            params, start = lora_params, 0
        elif name == "fo_lstar":
            params, start = layer_params(model, target), target
        else:
            raise ValueError(f"unknown method {name!r}")
        saved = [p.detach().clone() for p in params] if lora_params is None else None
        # the frozen prefix below `start` is runner.cache[start] (computed once above; weights are restored after
        # every run, so it stays valid)
        result = train(model, runner, y, cfg.zo, train_rows, eval_rows, params, start, rng, seed,
                       first_order=name.startswith("fo_"), before=pretrained,
                       max_steps=int(cfg.zo.full_max_steps) if name == "zo_full" else None)
        runs.append({"method": name, "layer": start if name != "zo_full" and lora_params is None else -1, **result})
        if lora_params is not None:
            lora.remove_lora(model.model.layers)
        else:
            with torch.no_grad():
                for p, s in zip(params, saved):
                    p.copy_(s)
        tick(f"run {name} ({result['steps']} steps)")
    meta = {"model": model_name, "task": task.name, "seed": seed, "l_star": l_star, "n_layers": n_layers}
    return layers.assign(**meta), pd.DataFrame(runs).assign(**meta)

"""The probe of one (model, task, seed): detector, per-layer ZO-signal diagnostics, perturbation propagation.

1. Outlier profile of the residual stream on the held-out prompts -> l* (inference only).
2. Per-layer ZO signal. A MeZO step on a parameter set S moves the held-out loss by -lr * g (z . g_E) to first order,
   with g = z . g_B the projected minibatch gradient. Its mean over z and minibatches is g_B . g_E (the expected
   descent); its second moment is E_B[2 (g_B . g_E)^2 + |g_B|^2 |g_E|^2] (Gaussian z), so the step's signal-to-noise
   ratio follows from the layer's minibatch and held-out gradients. Backprop is the measuring instrument here (one
   backward pass gives every layer); the ZO steps themselves never use it.
3. Propagation: |logits(theta_l + eps z) - logits(theta_l - eps z)| / (2 eps) for MeZO's own z on layer l (forward
   only, from the cached residual stream below l), and the projected gradient of those two forwards.
The fine-tuning runs (the layer sweep and the baselines) are `sweep.py`; this probe feeds the sensitivity claim and
the diagnostics (the SNR and the expected descent are sanity diagnostics, never a claim's evidence: issue #55 h).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
import torch

from neurips26.common.models.device import resolve_device
from neurips26.common.models.llm import encode_left_padded, label_token_ids
from neurips26.common.pipeline.seed_streams import derived_seed
from neurips26.papers.zo_dominant_layer import method, models


def layer_params(model, layer: int) -> list[torch.nn.Parameter]:
    """The parameters of decoder layer `layer` (0-based)."""
    return list(model.model.layers[layer].parameters())


def _backward(model, runner, y, rows) -> None:
    model.zero_grad(set_to_none=True)
    runner.loss(y, 0, rows, grad=True).backward()


def zo_signal(model, runner, y, train_rows, eval_rows, n_batches, batch, rng) -> pd.DataFrame:
    """Per layer (layer -1: the full model; -2: the parameters outside the decoder layers, so that the full model's
    descent is the sum of the blocks', a sanity check): expected held-out descent per unit lr of a MeZO step, its SNR,
    and gradient norms. Dot products are summed parameter by parameter (no flattened copies of the gradients)."""
    n_layers = runner.n_layers
    owner = {}  # parameter name -> layer index (embeddings and the final norm belong to the full model only)
    for name, _ in model.named_parameters():
        parts = name.split(".")
        owner[name] = int(parts[parts.index("layers") + 1]) if "layers" in parts else None
    for p in model.parameters():
        p.requires_grad_(True)
    _backward(model, runner, y, eval_rows)
    g_eval = {name: p.grad.detach().clone() for name, p in model.named_parameters()}
    stats = {k: [] for k in range(n_layers + 2)}  # n_layers: the full model; n_layers + 1: the rest
    for _ in range(n_batches):
        _backward(model, runner, y, torch.as_tensor(rng.choice(train_rows, batch, replace=False)))
        sums = np.zeros((n_layers + 2, 3))
        for name, p in model.named_parameters():
            gb, ge = p.grad, g_eval[name]
            terms = np.array([float((gb * ge).sum()), float((gb * gb).sum()), float((ge * ge).sum())])
            sums[n_layers] += terms
            sums[owner[name] if owner[name] is not None else n_layers + 1] += terms
        for k in range(n_layers + 2):
            stats[k].append(sums[k])
    model.zero_grad(set_to_none=True)
    for p in model.parameters():
        p.requires_grad_(False)
    rows = []
    for k, values in stats.items():
        dot, nb, ne = np.array(values).T
        descent = dot.mean()
        second = (2 * dot**2 + nb * ne).mean()
        rows.append({"layer": k if k < n_layers else n_layers - 1 - k, "descent": descent,
                     "snr": descent / np.sqrt(max(second - descent**2, 1e-300)),
                     "grad_norm_eval": float(np.sqrt(ne.mean())), "grad_norm_batch": float(np.sqrt(nb.mean()))})
    return pd.DataFrame(rows)


def propagation(model, runner, y, layers, rows, eps, draws, seed) -> pd.DataFrame:
    """Per layer: |logits(theta + eps z) - logits(theta - eps z)| / (2 eps) for MeZO's z on that layer alone, forward
    only from the cached stream below it; its mean and sd over the draws x prompts (the units of the interval), and
    the RMS of the two forwards' projected gradient."""
    out = []
    ce = torch.nn.functional.cross_entropy
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
            moves += ((plus - minus).norm(dim=1) / (2 * eps)).tolist()  # one value per prompt
            projections.append((float(ce(plus, y[rows])) - float(ce(minus, y[rows]))) / (2 * eps))
        out.append({"layer": layer, "propagation": float(np.mean(moves)), "propagation_sd": float(np.std(moves, ddof=1))
                    if len(moves) > 1 else float("nan"), "propagation_units": len(moves),
                    "zo_proj_rms": float(np.sqrt(np.mean(np.square(projections))))})
    return pd.DataFrame(out)


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


def run(cfg, model_name: str, task, seed: int, model_dir=None, root=None) -> pd.DataFrame:
    """The probe of one model x task x seed (inference and backprop diagnostics, no training): per layer (-1: the full
    model) the outlier profile, l*, the ZO-signal diagnostics and the propagation; model_dir: an exported SmolLM2."""
    tick = PhaseTimer()
    rng = np.random.default_rng(seed)
    device = resolve_device(str(cfg.device))
    # the small decoder's random weights (tiny scale) follow the run seed; SmolLM2's are pretrained
    tokenizer, model = models.load(model_name, cfg, seed=init_seed(seed), folder=model_dir, root=root)
    model.to(device)
    for p in model.parameters():
        p.requires_grad_(False)
    ids, mask, _ = encode_left_padded(tokenizer, task.prompts, int(cfg.tasks.max_tokens))
    ids, mask = ids.to(device), mask.to(device)
    runner = models.Runner(model, ids, mask, label_token_ids(tokenizer, task.words))
    y = torch.as_tensor(task.y, device=device)
    n_layers = runner.n_layers
    train_rows = np.arange(task.n_train)
    dev_rows = torch.arange(task.n_train, task.n_train + task.n_dev)  # the probe never reads the test split
    tick("load model, tokenise")
    runner.cache_inputs(range(n_layers))
    tick("cache residual stream")

    # 1. detector (inference only), on the dev prompts
    states = [runner.cache[i][dev_rows] for i in range(n_layers)] + [runner.output[dev_rows]]
    profile = pd.DataFrame(method.outlier_profile(states, mask[dev_rows]))
    detector = cfg.detector
    l_star = method.first_outlier_layer(profile.to_dict("records"), float(detector.ratio_min), float(detector.abs_min))
    profile = profile[profile.state > 0].assign(layer=lambda f: f.state - 1).drop(columns="state")
    tick("detector")
    # 2. ZO-signal diagnostics (all layers), 3. propagation (every layer: the claim compares l* with all of them)
    spec = cfg.signal
    signal = zo_signal(model, runner, y, train_rows, dev_rows, int(spec.batches), int(spec.batch), rng)
    tick("zo signal (all layers)")
    prop_rows = dev_rows[: int(cfg.propagation.examples)]
    prop = propagation(model, runner, y, range(n_layers), prop_rows, float(cfg.zo.eps), int(cfg.propagation.draws),
                       seed)
    tick(f"propagation ({n_layers} layers)")
    layers = signal.merge(profile, on="layer", how="left").merge(prop, on="layer", how="left")
    return layers.assign(model=model_name, task=task.name, seed=seed, l_star=l_star, n_layers=n_layers)

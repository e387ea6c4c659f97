"""One run = one grid point (arch, decay, eta, lambda, seed): full-batch GD on the fixed digits subset, measuring every
`eig_freq` steps (Cohen et al.'s protocol) until the target train accuracy, the arch's EoS stopping rule (grid.eos_window:
a fixed number of checkpoints after the EoS onset), the long design's flatness rule (grid.flat_rule: S flat over the last
k checkpoints, flatness.flat_stop) or the step budget (the hard cap). Returns the trace table."""

from __future__ import annotations

import pandas as pd
import torch
from tqdm import tqdm

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.wd_eos import baselines, measures, method, models
from neurips26.papers.wd_eos.data import N_CLASSES, Split
from neurips26.papers.wd_eos.flatness import flat_stop
from neurips26.papers.wd_eos.grid import budget, eos_stop_index, eos_window, flat_rule

STEPS = {"coupled": method.coupled_step, "decoupled": baselines.decoupled_step}
THRESHOLDS = {"coupled": method.stability_threshold, "decoupled": baselines.decoupled_threshold}


def check_point(arch: str, decay: str, eta: float, wd: float) -> None:
    if arch not in ("mlp", "cnn"):
        raise UserError(f"wd_eos: run.arch {arch!r} is not one of mlp, cnn")
    if decay not in STEPS:
        raise UserError(f"wd_eos: run.decay {decay!r} is not one of {', '.join(STEPS)}")
    if not eta > 0 or not 0 <= wd < 1 / eta:
        raise UserError(f"wd_eos: need eta > 0 and 0 <= wd < 1/eta, got eta={eta}, wd={wd}")


def run(cfg, split: Split, arch: str, decay: str, eta: float, wd: float, seed: int, device: str) -> pd.DataFrame:
    check_point(arch, decay, eta, wd)
    torch.manual_seed(seed)
    model = models.build(arch, cfg, split.shape, N_CLASSES).to(device)
    params = list(model.parameters())
    x = torch.from_numpy(split.x_train).to(device)
    y = torch.from_numpy(split.y_train).to(device)
    x_hess, y_hess = x[:int(cfg.hessian_size)], y[:int(cfg.hessian_size)]  # Cohen's abridged set: a fixed prefix
    probe = torch.from_numpy(split.x_probe).to(device)
    generator = torch.Generator().manual_seed(seed)
    step_fn, threshold = STEPS[decay], THRESHOLDS[decay](eta, wd)
    max_steps, eig_freq = budget(cfg, arch)
    window = eos_window(cfg, arch)
    flat_window, flat_min_step = flat_rule(cfg, arch)
    flat_level = float(cfg.summary.get("flat_level", 0.95))
    rows, v_top, kernel_prev, step_prev = [], None, None, None
    loss_prev, loss_rise = None, 0.0
    for step in tqdm(range(max_steps + 1), desc=f"{arch} {decay} eta={eta} wd={wd} seed={seed}", mininterval=5):
        out = model(x)
        loss = models.square_loss(out, y)
        loss_value = float(loss.detach())
        if loss_prev is not None:  # EoS loss oscillation: the relative loss increases of every step, summed per interval
            loss_rise += max(0.0, loss_value - loss_prev) / max(loss_prev, 1e-30)
        loss_prev = loss_value
        acc = float((out.argmax(1) == y).float().mean())
        done = acc >= float(cfg.target_acc) or step == max_steps
        if step % eig_freq == 0 or done:
            sharp, align, v_top = measures.sharpness_and_alignment(
                lambda: models.square_loss(model(x_hess), y_hess), params, int(cfg.eigen.iters), v_top, generator)
            kernel = measures.ntk(model, probe)
            velocity = float("nan") if kernel_prev is None else \
                measures.kernel_distance(kernel_prev, kernel) / (step - step_prev)
            kernel_prev, step_prev = kernel, step
            theta_norm = float(torch.sqrt(sum((p.detach() ** 2).sum() for p in params)))
            rows.append({"arch": arch, "decay": decay, "eta": eta, "wd": wd, "seed": seed, "step": step,
                         "loss": loss_value, "loss_rise": loss_rise, "accuracy": acc, "sharpness": sharp,
                         "sharpness_reg": sharp + wd, "threshold": threshold, "two_over_eta": 2.0 / eta, "alignment": align,
                         "kernel_velocity": velocity, "weight_norm": theta_norm})
            loss_rise = 0.0
            done = done or eos_stop_index([r["sharpness"] for r in rows], threshold, window) is not None
            done = done or flat_stop([r["step"] for r in rows], [r["sharpness"] for r in rows], flat_window,
                                     flat_level, flat_min_step)
        if done:
            break
        grads = torch.autograd.grad(loss, params)
        step_fn(params, grads, eta, wd)
    return pd.DataFrame(rows)

"""One job = one task x label-noise level x seed: every width x training-set size of the sweep, each a full run
(prequential training, final code length, regret, bound, block code and the other measures) giving one CSV row."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import torch
from tqdm import tqdm

from neurips26.common.models import optim
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.prequential_mdl import baselines, data, method


def _optimizer(cfg, model):
    if cfg.train.optimizer != "adam":
        raise UserError(f"config key train.optimizer: {cfg.train.optimizer!r} is not supported; use adam")
    return optim.Adam(model.parameters(), lr=float(cfg.train.lr))


def _fresh_model(cfg, inputs: int, width: int, classes: int, seed: int, device: str):
    """The same initialisation for every run of a seed and width (and for the block code's prefix models);
    width 0 is the zero-initialised linear softmax student of the positive control."""
    torch.manual_seed(seed)
    model = method.mlp(inputs, width, classes, int(cfg.model.depth) if width else 0)
    if not width:
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
    return model.to(device)


def _train(cfg, model, x, y, max_epochs: int, seed: int):
    generator = torch.Generator().manual_seed(seed)
    first = torch.randperm(len(y), generator=generator).to(x.device)
    return method.train_prequential(model, x, y, _optimizer(cfg, model), int(cfg.train.batch), max_epochs,
                                    float(cfg.train.stop_train_accuracy), first, generator,
                                    int(cfg.train.later_batch), str(cfg.train.get("schedule", "constant")))


def _block_code(cfg, x, y, classes: int, width: int, seed: int) -> float:
    def fit(xp, yp):
        model = _fresh_model(cfg, x.shape[1], width, classes, seed, str(x.device))
        _train(cfg, model, xp, yp, int(cfg.block_code.max_epochs), seed)
        return model

    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed + 1)).to(x.device)
    return baselines.block_code_length(x[order], y[order], classes, list(cfg.block_code.fractions), fit)


def one_run(cfg, task: data.Task, noise: float, width: int, n: int, seed: int, device: str) -> dict:
    x_np, y_np = task.train(n, noise)
    xt_np, yt_noisy, yt_clean = task.test(noise)
    x, y = torch.from_numpy(x_np).to(device), torch.from_numpy(y_np).to(device)
    x_test = torch.from_numpy(xt_np).to(device)
    model = _fresh_model(cfg, x.shape[1], width, task.classes, seed, device)
    initial = baselines.flat_params(model).clone()
    traj = _train(cfg, model, x, y, int(cfg.train.max_epochs), seed)
    with torch.no_grad():
        logits = model(x)
        test_pred = model(x_test).argmax(dim=1).cpu().numpy()
    final_bits = method.code_length_bits(logits, y)
    train_err = 1.0 - float((logits.argmax(dim=1) == y).double().mean())
    regret = method.regret(traj.preq_bits, final_bits)
    test_err = float((test_pred != yt_noisy).mean())
    row = {"noise": noise, "width": width, "n": n, "seed": seed, "epochs": traj.epochs, "steps": traj.steps,
           "interpolated": traj.interpolated, "train_err": train_err, "test_err": test_err,
           "test_err_clean": float((test_pred != yt_clean).mean()), "gen_gap": test_err - train_err,
           "preq_bits": traj.preq_bits, "final_bits": final_bits, "regret_bits": regret,
           "regret_per_example": regret / n, "preq_per_example": traj.preq_bits / n,
           "one_pass_bits": traj.one_pass_bits,
           "regret_one_pass_per_example": method.regret(traj.preq_bits, traj.one_pass_bits) / n,
           "uniform_per_example": math.log2(task.classes),
           "bound": method.pac_mdl_bound(train_err, regret, n, float(cfg.bound.delta)),
           "sotl": traj.sotl, "final_train_loss": final_bits * method.LN2 / n,
           **baselines.norms(model, initial),
           "sharpness": baselines.sharpness(model, x, y, int(cfg.sharpness.lanczos_iters), seed)}
    row["neg_margin"] = -baselines.margin_quantile(logits, y, float(cfg.margin.quantile))
    row["block_bits"] = _block_code(cfg, x, y, task.classes, width, seed)
    row["block_per_example"] = row["block_bits"] / n
    return row


def run_control(cfg, seed: int, device: str) -> pd.DataFrame:
    """The positive control (data.control_task): a linear softmax student, trained with the same protocol and scored
    with the same code as the sweep, at every label-noise level of `control.noise`."""
    c = cfg.control
    task = data.control_task(int(c.classes), int(c.n), int(c.n_test), float(c.signal), float(c.id_scale), seed)
    rows = [one_run(cfg, task, float(p), 0, int(c.n), seed, device)
            for p in tqdm(list(c.noise), desc=f"control seed={seed}")]
    frame = pd.DataFrame(rows)
    frame.insert(0, "task", "control")
    return frame


def run_group(cfg, task_name: str, noise: float, seed: int, folder: Path, device: str) -> pd.DataFrame:
    cfg = data.task_config(cfg, task_name)
    task = data.load_task(task_name, cfg, folder, seed)
    grid = [(int(w), int(n)) for w in cfg.sweep.width for n in cfg.sweep.n]
    rows = [one_run(cfg, task, noise, w, n, seed, device)
            for w, n in tqdm(grid, desc=f"{task_name} noise={noise} seed={seed}")]
    frame = pd.DataFrame(rows)
    frame.insert(0, "task", task_name)
    return frame

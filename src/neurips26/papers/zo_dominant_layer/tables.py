"""Tables from the per-run CSVs: the probe (layers, detector), the training runs (sweep, curves)."""

from __future__ import annotations

import pandas as pd


def table_layers(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x layer (-1: full model, -2: the parameters outside the layers): outlier ratio, ZO-signal
    diagnostics and propagation, mean and sd over seeds (the probe)."""
    keys = ["model", "task", "layer"]
    values = ["ratio", "max_abs", "descent", "snr", "grad_norm_eval", "propagation", "propagation_sd", "zo_proj_rms"]
    out = frame.groupby(keys)[values].agg(["mean", "std"])
    out.columns = [f"{v}_{s}" if s == "std" else v for v, s in out.columns]
    out = out.reset_index()
    lstar = frame.groupby(["model", "task"]).l_star.agg(lambda s: int(s.mode().iloc[0])).rename("l_star")
    return out.merge(lstar.reset_index(), on=["model", "task"])


def table_sweep(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x method x layer, the runs with the lr chosen on dev: test accuracy (mean and sd over seeds),
    best dev accuracy, lr, seconds per step, peak memory, share of plateaued curves (the sweep is method zo_layer)."""
    chosen = frame[frame.chosen.astype(bool)]
    keys = ["model", "task", "method", "layer"]
    values = ["test_acc", "best_dev_acc", "lr", "s_per_step", "peak_mem_mb", "forward_passes", "plateaued",
              "pretrained_test_acc", "params"]
    out = chosen.groupby(keys)[values].mean().reset_index()
    out["test_acc_std"] = chosen.groupby(keys).test_acc.std().to_numpy()
    lstar = chosen.groupby(["model", "task"]).l_star.agg(lambda s: int(s.mode().iloc[0])).rename("l_star")
    return out.merge(lstar.reset_index(), on=["model", "task"])


def table_detector(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x layer: the detector's profile (inference only), mean over seeds (each seed draws its held-out
    prompts), and l* (its mode over seeds), for SmolLM2 (from the run CSVs) and the second family, MiniLM
    (runs/seed<s>_minilm_profile.csv)."""
    keys = ["model", "task", "layer"]
    out = frame.groupby(keys)[["ratio", "max_abs", "median_abs"]].mean().reset_index()
    meta = frame.groupby(["model", "task"]).agg(l_star=("l_star", lambda s: int(s.mode().iloc[0])),
                                                n_layers=("layer", lambda s: int(s.max()) + 1))
    return out.merge(meta.reset_index(), on=["model", "task"])


def table_layers_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x seed x layer (-1: full model): the run CSVs as they are (the per-seed values the claims test)."""
    return frame.sort_values(["model", "task", "seed", "layer"]).reset_index(drop=True)


def table_sweep_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x seed x method x layer x lr: the training runs as they are (the claims read them)."""
    return frame.sort_values(["model", "task", "seed", "method", "layer", "lr"]).reset_index(drop=True)


def table_curves_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """Every run's dev-accuracy curve (one row per evaluation; forward passes, training seconds so far)."""
    return frame.sort_values(["model", "task", "seed", "method", "layer", "lr", "forward_passes"]).reset_index(drop=True)


def table_detector_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x seed: the detector's first outlier layer l*, the number of layers and the largest ratio."""
    out = frame[frame.layer >= 0].groupby(["model", "task", "seed"]).agg(
        l_star=("l_star", "first"), n_layers=("layer", lambda s: int(s.max()) + 1), ratio=("ratio", "max"))
    return out.reset_index()


TABLES = {"layers": table_layers, "sweep": table_sweep, "detector": table_detector, "layers_seeds": table_layers_seeds,
          "sweep_seeds": table_sweep_seeds, "curves_seeds": table_curves_seeds, "detector_seeds": table_detector_seeds}

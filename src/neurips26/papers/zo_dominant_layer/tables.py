"""Tables aggregated over seeds from the per-run CSVs."""

from __future__ import annotations

import pandas as pd


def table_layers(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x layer (-1: full model): outlier ratio, ZO signal and propagation, mean and sd over seeds."""
    keys = ["model", "task", "layer"]
    values = ["ratio", "max_abs", "descent", "snr", "grad_norm_eval", "propagation", "zo_proj_rms"]
    out = frame.groupby(keys)[values].agg(["mean", "std"])
    out.columns = [f"{v}_{s}" if s == "std" else v for v, s in out.columns]
    out = out.reset_index()
    lstar = frame.groupby(["model", "task"]).l_star.agg(lambda s: int(s.mode().iloc[0])).rename("l_star")
    return out.merge(lstar.reset_index(), on=["model", "task"])


def table_main(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x method: accuracy and loss before/after, seconds per step, perturbed parameters."""
    keys = ["model", "task", "method"]
    values = ["layer", "steps", "s_per_step", "loss_before", "loss_after", "acc_before", "acc_after", "params"]
    out = frame.groupby(keys)[values].mean().reset_index()
    out["acc_after_std"] = frame.groupby(keys).acc_after.std().to_numpy()
    out["loss_drop"] = out.loss_before - out.loss_after
    return out


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


def table_main_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x seed x method: the short runs as they are (per-seed speed and accuracy for the claims)."""
    return frame.sort_values(["model", "task", "seed", "method"]).reset_index(drop=True)


def table_detector_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x task x seed: the detector's first outlier layer l*, the number of layers and the largest ratio."""
    out = frame[frame.layer >= 0].groupby(["model", "task", "seed"]).agg(
        l_star=("l_star", "first"), n_layers=("layer", lambda s: int(s.max()) + 1), ratio=("ratio", "max"))
    return out.reset_index()


TABLES = {"layers": table_layers, "main": table_main, "detector": table_detector, "layers_seeds": table_layers_seeds,
          "main_seeds": table_main_seeds, "detector_seeds": table_detector_seeds}

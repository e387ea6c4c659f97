"""Diagnostics of the positive control (README: Open): the universe's true population frequencies of every sample, and
how much of them a frozen embedding carries (tools/cytometry_encoder_positive_control_diagnostic.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurips26.papers.cytometry_encoder import probe


def recording_sample_cells(recorded: list):
    """universe.sample_cells with the same draws in the same order (dirichlet, choice, normal) and the same events,
    appending each sample's population frequencies to `recorded` (a test checks values and generator state)."""

    def sample_cells(rng, profile, base_logp, shift_logp, study_shift, study_scale, u, frequencies=None):
        proportions = rng.dirichlet(u.concentration * np.exp(base_logp + shift_logp) / np.exp(base_logp + shift_logp).sum())
        pop = rng.choice(len(profile), size=u.cells_per_sample, p=proportions)
        x = profile[pop] + u.noise_sd * rng.standard_normal((u.cells_per_sample, profile.shape[1]))
        recorded.append(np.bincount(pop, minlength=len(profile)) / len(pop))
        if frequencies is not None:
            frequencies.append(recorded[-1])
        return np.sinh(x * study_scale + study_shift) * u.cofactor

    return sample_cells


def true_frequencies(cfg) -> tuple[dict[str, np.ndarray], dict]:
    """sample name -> population frequencies [n_populations], and the universe's summary (tasks' up / down
    populations): the generator re-run without writing a file (its draws unchanged, so every sample gets the
    populations its FCS file was written from; the ingest keeps every event at default, 300 of 300)."""
    from neurips26.papers.cytometry_encoder import universe

    recorded: list[np.ndarray] = []
    names: list[str] = []
    patches = {"sample_cells": recording_sample_cells(recorded),
               "write_fcs": lambda path, *a, **k: names.append(Path(path).stem),
               "write_manifest": lambda *a, **k: None, "write_frequencies": lambda *a, **k: None}
    saved = {k: getattr(universe, k) for k in patches}
    try:
        for k, v in patches.items():
            setattr(universe, k, v)
        info = universe.generate(cfg.universe, cfg.tasks, Path("/nonexistent-never-written"))
    finally:
        for k, v in saved.items():
            setattr(universe, k, v)
    if len(names) != len(recorded):
        raise RuntimeError("the universe generator changed: sample_cells and write_fcs no longer pair up")
    return dict(zip(names, recorded)), info


def cv_r2(z: np.ndarray, target: np.ndarray, folds: np.ndarray, alpha: float = 0.1) -> float:
    """Cross-validated R^2 of ridge regression (standardised features, fold-wise statistics) of one target."""
    pred = np.empty_like(target)
    for k in np.unique(folds):
        tr, te = folds != k, folds == k
        mu, sd = z[tr].mean(0), z[tr].std(0)
        sd = np.where(sd > 1e-12, sd, 1.0)
        a, b = (z[tr] - mu) / sd, (z[te] - mu) / sd
        w = np.linalg.solve(a.T @ a + alpha * len(a) * np.eye(a.shape[1]), a.T @ (target[tr] - target[tr].mean()))
        pred[te] = b @ w + target[tr].mean()
    return float(1 - ((target - pred) ** 2).sum() / ((target - target.mean()) ** 2).sum())


def describe(cfg, z: np.ndarray, rows, freq: np.ndarray, moved: tuple[int, int], seed: int) -> dict:
    y = np.array([s.label for s in rows])
    folds = probe.stratified_folds(y, int(cfg.probe.folds), seed)
    studies = np.array([s.study for s in rows])
    r2 = [cv_r2(z, freq[:, p], folds) for p in range(freq.shape[1])]
    return {"auroc": probe.cv_auroc(z, y, int(cfg.probe.folds), float(cfg.probe.l2_c), seed),
            "r2_up": r2[moved[0]], "r2_down": r2[moved[1]], "r2_mean": float(np.mean(r2)),
            "study_auroc": float(np.mean([probe.cv_auroc(z, (studies == s).astype(int), int(cfg.probe.folds),
                                                          float(cfg.probe.l2_c), seed) for s in np.unique(studies)]))}

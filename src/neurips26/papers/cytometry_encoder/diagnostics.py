"""Diagnostics of the positive control (JOURNAL: Open): the universe's true population frequencies of every sample, and
how much of them a frozen embedding carries (this folder's pilots/positive_control_diagnostic.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurips26.papers.cytometry_encoder import probe


def true_frequencies(cfg, seed: int, root: Path | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """sample name -> population frequencies [n_populations], and the universe's summary (tasks' up / down
    populations): the generator re-run without writing a file; the frequencies are the ones it would write to
    frequencies.csv (every sample's populations as drawn; the ingest keeps every event at default, 300 of 300).
    `root`: where the generator is told it writes (nothing is written there); by default a path in a temporary
    directory that is removed afterwards, so a writer missed by the patches below could not leave a file behind."""
    import tempfile

    from neurips26.papers.cytometry_encoder import universe

    if root is None:
        with tempfile.TemporaryDirectory(prefix="true-frequencies-") as scratch:
            return true_frequencies(cfg, seed, Path(scratch) / "world")

    captured: dict[str, np.ndarray] = {}
    patches = {"write_fcs": lambda *a, **k: None, "write_manifest": lambda *a, **k: None,
               "write_frequencies": lambda path, frequencies: captured.update(frequencies)}
    saved = {k: getattr(universe, k) for k in patches}
    try:
        for k, v in patches.items():
            setattr(universe, k, v)
        info = universe.generate(cfg.universe, cfg.tasks, root, seed)
    finally:
        for k, v in saved.items():
            setattr(universe, k, v)
    return captured, info


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

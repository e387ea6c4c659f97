"""Rank and linear correlations between a complexity measure and a generalization target, with percentile bootstrap
confidence intervals over runs. All three coefficients are computed row-wise on a (resamples x runs) array, so the
bootstrap is a few array operations rather than a Python loop (Kendall's tau-b included)."""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from neurips26.common.pipeline.seed_streams import rng

KINDS = ("pearson", "spearman", "kendall")


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc, yc = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    den = np.sqrt((xc ** 2).sum(axis=-1) * (yc ** 2).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (xc * yc).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson of the (average-tie) ranks."""
    return pearson_rows(rankdata(x, axis=-1), rankdata(y, axis=-1))


def kendall_rows(x: np.ndarray, y: np.ndarray, chunk: int = 64) -> np.ndarray:
    """Kendall's tau-b = sum_ij s_x s_y / sqrt(sum_ij s_x^2 sum_ij s_y^2), s = sign of the pairwise differences."""
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    out = np.empty(len(x))
    for start in range(0, len(x), chunk):
        sx = np.sign(x[start:start + chunk, :, None] - x[start:start + chunk, None, :])
        sy = np.sign(y[start:start + chunk, :, None] - y[start:start + chunk, None, :])
        den = np.sqrt((sx ** 2).sum(axis=(1, 2)) * (sy ** 2).sum(axis=(1, 2)))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + chunk] = np.where(den > 0, (sx * sy).sum(axis=(1, 2)) / np.where(den > 0, den, 1.0),
                                                np.nan)
    return out


def bootstrap_rng(cfg, purpose: str) -> np.random.Generator:
    """The resampling stream of one bootstrap, drawn from the configured seed set through the project's seed streams:
    another seed set resamples anew, the same one reproduces every interval."""
    seeds = [int(s) for s in cfg.seeds]
    return rng(seeds[0], f"bootstrap {purpose} seeds {','.join(map(str, seeds))}")


def bootstrap_seed(cfg, purpose: str) -> int:
    return int(bootstrap_rng(cfg, purpose).integers(2 ** 31))


ROWS = {"pearson": pearson_rows, "spearman": spearman_rows, "kendall": kendall_rows}


def correlate(x, y, resamples: int, seed: int, level: float = 0.95) -> dict:
    """Point estimates of the three coefficients and their percentile bootstrap intervals (runs resampled)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    idx = np.random.default_rng(seed).integers(0, len(x), size=(resamples, len(x)))
    tail = 100 * (1 - level) / 2
    out = {}
    for kind, rows in ROWS.items():
        out[kind] = float(np.atleast_1d(rows(x[None], y[None]))[0])
        boot = rows(x[idx], y[idx])
        ok = boot[~np.isnan(boot)]
        out[f"{kind}_lo"], out[f"{kind}_hi"] = (np.percentile(ok, [tail, 100 - tail]) if len(ok) else (np.nan,) * 2)
    return out

"""Tables from the saved per-seed episode and curve CSVs (percentages in points, 0-100)."""

from __future__ import annotations

import numpy as np
import pandas as pd

LEVELS = {1: "I", 2: "II"}


def _summary(d: pd.DataFrame) -> dict:
    won = d[d["success"] == 1]
    return {"episodes": len(d), "sr": 100 * d["success"].mean(), "car": 100 * (1 - d["collision_ref"].mean()),
            "contact_free": 100 * (1 - d["contact"].mean()),
            "steps_success": won["steps"].mean() if len(won) else np.nan, "steps_all": d["steps"].mean()}


def safelibero_proxy(episodes: pd.DataFrame) -> pd.DataFrame:
    """SR, CAR (SafeLIBERO rule: obstacle displaced by > 1 mm = collision), steps, per method x level (and both),
    pooled over seeds and held-out layouts; car_seed_sd / sr_seed_sd: the spread of the per-seed values."""
    rows = []
    cells = list(episodes.groupby(["method", "level"], sort=False))
    cells += [((m, "all"), d) for m, d in episodes.groupby("method", sort=False)]
    for (method, level), d in cells:
        per_seed = pd.DataFrame([_summary(s) for _, s in d.groupby("seed")])
        rows.append({"method": method, "level": LEVELS.get(level, level), **_summary(d),
                     "sr_seed_sd": per_seed["sr"].std(ddof=0), "car_seed_sd": per_seed["car"].std(ddof=0)})
    return pd.DataFrame(rows)


def _trace_counts(d: pd.DataFrame) -> dict:
    truth, pred = d["contact"] == 1, d["trace_collision"] == 1
    return {"trace_tp": int((truth & pred).sum()), "trace_fp": int((~truth & pred).sum()),
            "trace_fn": int((truth & ~pred).sum()), "relevance_correct": int(d["relevance_correct"].sum())}


def per_seed(episodes: pd.DataFrame) -> pd.DataFrame:
    """The same summary per seed (the claims' paired per-seed values), with TRACE's counts against the simulator's
    contacts (trace_tp / trace_fp / trace_fn) and the episodes whose relevance TRACE got right, per cell."""
    rows = [{"seed": s, "method": m, "level": LEVELS.get(lv, lv), **_summary(d), **_trace_counts(d)}
            for (s, m, lv), d in episodes.groupby(["seed", "method", "level"], sort=False)]
    rows += [{"seed": s, "method": m, "level": "all", **_summary(d), **_trace_counts(d)}
             for (s, m), d in episodes.groupby(["seed", "method"], sort=False)]
    return pd.DataFrame(rows)


def _agreement(d: pd.DataFrame, predicted: str) -> dict:
    truth, pred = d["contact"] == 1, d[predicted] == 1
    tp, fp, fn = int((truth & pred).sum()), int((~truth & pred).sum()), int((truth & ~pred).sum())
    return {"episodes": len(d), "tp": tp, "fp": fp, "fn": fn, "tn": len(d) - tp - fp - fn,
            "precision": tp / (tp + fp) if tp + fp else np.nan, "recall": tp / (tp + fn) if tp + fn else np.nan}


def trace_vs_contacts(episodes: pd.DataFrame) -> pd.DataFrame:
    """TRACE's collision outcome (from RGB-D + proprioception) against the simulator's contact ground truth, per
    method and overall; the SafeLIBERO displacement rule (simulator state) beside it; relevance accuracy."""
    rows = []
    for method, d in [*episodes.groupby("method", sort=False), ("all", episodes)]:
        rows.append({"method": method, "detector": "trace", **_agreement(d, "trace_collision"),
                     "relevance_accuracy": d["relevance_correct"].mean()})
        rows.append({"method": method, "detector": "safelibero_displacement", **_agreement(d, "collision_ref"),
                     "relevance_accuracy": np.nan})
    return pd.DataFrame(rows)


def rl_curves(curves: pd.DataFrame) -> pd.DataFrame:
    """Per reward kind and iteration: mean and spread over seeds of the training-batch success and collision rates."""
    g = curves.groupby(["reward_kind", "iteration", "episodes"])
    out = g[["reward", "success", "collision_ref", "trace_collision"]].mean()
    out = out.join(g[["success", "collision_ref"]].std(ddof=0).add_suffix("_seed_sd"))
    return out.reset_index()

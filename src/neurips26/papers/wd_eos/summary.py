"""Trace -> run metrics: sharpening time, plateau level, oscillation amplitude, late alignment and kernel velocity."""

from __future__ import annotations

import numpy as np
import pandas as pd

KEYS = ["arch", "decay", "eta", "wd"]


def summarise_run(trace: pd.DataFrame, sharpening_fraction: float, late_fraction: float) -> dict:
    """One row of metrics for one run's trace (checkpoints sorted by step)."""
    trace = trace.sort_values("step")
    eta = float(trace.eta.iloc[0])
    reached = trace.step[trace.sharpness >= sharpening_fraction * 2.0 / eta]
    budget = int(trace.step.max())
    late = trace.iloc[-max(2, int(round(late_fraction * len(trace)))):]
    return {**{k: trace[k].iloc[0] for k in KEYS}, "seed": int(trace.seed.iloc[0]),
            # a run that never sharpens to the level is censored at its budget (it is at least that slow)
            "sharpening_time": float(reached.iloc[0]) if len(reached) else float(budget),
            "reached": bool(len(reached)),
            "plateau": float(late.sharpness.mean()),
            "osc_amplitude": float(late.sharpness.std(ddof=0)),
            "alignment": float(late.alignment.abs().mean()),
            "kernel_velocity": float(np.nanmean(late.kernel_velocity)),
            "threshold": float(trace.threshold.iloc[0]),
            "final_loss": float(trace.loss.iloc[-1]), "final_accuracy": float(trace.accuracy.iloc[-1]),
            "steps": budget}


def main_table(traces: pd.DataFrame, sharpening_fraction: float, late_fraction: float) -> pd.DataFrame:
    """tables/main.csv: seed means (and seed standard deviations) of every metric per (arch, decay, eta, lambda)."""
    runs = pd.DataFrame([summarise_run(t, sharpening_fraction, late_fraction)
                         for _, t in traces.groupby(KEYS + ["seed"], sort=True)])
    metrics = ["sharpening_time", "plateau", "osc_amplitude", "alignment", "kernel_velocity", "final_loss",
               "final_accuracy"]
    grouped = runs.groupby(KEYS, sort=True)
    table = grouped[metrics].mean()
    table = table.join(grouped[metrics].std(ddof=0).add_suffix("_sd"))
    table["reached_fraction"] = grouped["reached"].mean()
    table["threshold"] = grouped["threshold"].first()
    table["plateau_ratio"] = table["plateau"] / table["threshold"]
    table["seeds"] = grouped.size()
    return table.reset_index()

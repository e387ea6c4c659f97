"""Trace -> run metrics: sharpening time, plateau level, EoS oscillation amplitude, late alignment and kernel velocity.

Oscillation at the EoS (the measure the claims use, fixed before the final runs; README): the run enters the EoS at
the first checkpoint where S reaches its stability threshold (2/eta - lambda for coupled decay); from there to the end,
the oscillation amplitude is the mean absolute change of S between consecutive checkpoints, relative to 2/eta. A slow
drift adds little to it, a swing of S around 2/eta adds its full size. Two other readings stay as ablations: the
standard deviation of S over the last third (the first measure, `osc_std_late`) and the loss oscillation in the EoS
phase (`loss_osc`: relative loss increases per step, from the per-step losses).

Late window: an arch with an EoS stopping rule (grid.<arch>.eos_checkpoints = k; the CNN) stops k checkpoints after its
EoS onset, and its plateau, alignment and kernel velocity are taken over its last k + 1 checkpoints, i.e. the EoS
window itself for a run that met the rule (the last k + 1 checkpoints before the hard cap for one that did not). Archs
without the rule (the MLP) keep the last `late_fraction` of their checkpoints."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from neurips26.papers.wd_eos.flatness import final_slope
from neurips26.papers.wd_eos.grid import eos_stop_index

KEYS = ["arch", "decay", "eta", "wd"]


def sharpening_time(steps: np.ndarray, sharpness: np.ndarray, level: float) -> tuple[float, bool]:
    """(first step with S >= level, True); a run that never gets there is censored: (NaN, False). Its time is only
    known to exceed the run's last step (the bound run_metrics reports), never imputed as the budget."""
    hit = np.flatnonzero(np.asarray(sharpness) >= level)
    return (float(steps[hit[0]]), True) if len(hit) else (float("nan"), False)


def sharpening_rate(steps: np.ndarray, sharpness: np.ndarray, threshold: float) -> tuple[float, float, bool]:
    """The rate of progressive sharpening (issue #71 item 2; the paper's definition could not be read): the mean rise of
    S per step from the start to the EoS onset, (threshold - S_0) / t_onset, t_onset = the first checkpoint with S >=
    threshold (2/eta - lambda for coupled decay).

    Returns (rate, upper bound, censored). A run that never reaches the threshold is censored: its onset lies after
    the last step T, so its rate is only known to be below (threshold - S_0) / T, which is returned as the bound and
    the rate is NaN (never imputed). A run that starts at or above the threshold has no progressive sharpening: NaN,
    NaN, False (missing)."""
    steps, sharpness = np.asarray(steps, dtype=float), np.asarray(sharpness, dtype=float)
    rise = threshold - sharpness[0]
    if rise <= 0:
        return float("nan"), float("nan"), False
    hit = np.flatnonzero(sharpness >= threshold)
    if len(hit):
        return float(rise / steps[hit[0]]), float("nan"), False
    return float("nan"), float(rise / steps[-1]) if steps[-1] > 0 else float("nan"), True


def sharpening_rate_upper(steps: np.ndarray, sharpness: np.ndarray, threshold: float) -> float:
    """The upper end of an observed rate (issue #71, fixed after the pre-registered run; JOURNAL.md): S is measured
    only at checkpoints, so the crossing lies in (t_(k-1), t_k] for the onset checkpoint k, and the rate in
    [(threshold - S_0) / t_k, (threshold - S_0) / t_(k-1)). Two runs whose onsets fall in the same checkpoint
    interval therefore have no certain order; before this fix the lambda shift of the threshold (2/eta - lambda)
    ordered them. inf when the onset is the first checkpoint after the start; NaN without an observed onset."""
    steps, sharpness = np.asarray(steps, dtype=float), np.asarray(sharpness, dtype=float)
    rise = threshold - sharpness[0]
    hit = np.flatnonzero(sharpness >= threshold)
    if rise <= 0 or not len(hit):
        return float("nan")
    before = steps[hit[0] - 1]
    return float(rise / before) if before > 0 else float("inf")


def eos_oscillation(steps: np.ndarray, sharpness: np.ndarray, threshold: float, two_over_eta: float) -> tuple[float, float]:
    """(onset step, amplitude): onset = first checkpoint with S >= threshold; amplitude = mean |S_k - S_(k-1)| / (2/eta)
    over the checkpoints from the onset on. NaN for both when the run never reaches the threshold, NaN amplitude when
    fewer than two checkpoints follow the onset."""
    hit = np.flatnonzero(np.asarray(sharpness) >= threshold)
    if not len(hit):
        return float("nan"), float("nan")
    window = np.asarray(sharpness)[hit[0]:]
    amplitude = float(np.abs(np.diff(window)).mean() / two_over_eta) if len(window) >= 2 else float("nan")
    return float(steps[hit[0]]), amplitude


def loss_oscillation(trace: pd.DataFrame, onset: float) -> float:
    """Mean relative loss increase per step after the EoS onset (loss_rise sums them per checkpoint interval)."""
    if "loss_rise" not in trace or not np.isfinite(onset):
        return float("nan")
    after = trace[trace.step > onset]
    span = float(after.step.max() - onset) if len(after) else 0.0
    return float(after.loss_rise.sum() / span) if span > 0 else float("nan")


def summarise_run(trace: pd.DataFrame, sharpening_fraction: float, late_fraction: float,
                  eos_window: int | None = None, flat_level: float = 0.95) -> dict:
    """One row of metrics for one run's trace (checkpoints sorted by step). eos_window: the arch's EoS stopping rule
    (None: none; late window = last late_fraction of the checkpoints)."""
    trace = trace.sort_values("step")
    eta = float(trace.eta.iloc[0])
    steps, sharp = trace.step.to_numpy(), trace.sharpness.to_numpy()
    time, reached = sharpening_time(steps, sharp, sharpening_fraction * 2.0 / eta)
    threshold = float(trace.threshold.iloc[0])
    rate, rate_bound, rate_censored = sharpening_rate(steps, sharp, threshold)
    onset, amplitude = eos_oscillation(steps, sharp, threshold, 2.0 / eta)
    if eos_window is None:
        late = trace.iloc[-max(2, int(round(late_fraction * len(trace)))):]
    else:
        late = trace.iloc[-max(2, eos_window + 1):]
    complete = eos_stop_index(list(sharp), threshold, eos_window) is not None
    slope, slope_lo, slope_hi = final_slope(late.step.to_numpy(), late.sharpness.to_numpy(), flat_level)
    return {**{k: trace[k].iloc[0] for k in KEYS}, "seed": int(trace.seed.iloc[0]),
            "sharpening_time": time, "reached": reached,
            "sharpening_time_bound": float("nan") if reached else float(steps[-1]),  # censored: time > this
            "sharpening_rate": rate, "sharpening_rate_bound": rate_bound, "rate_censored": rate_censored,
            "sharpening_rate_upper": sharpening_rate_upper(steps, sharp, threshold),
            "plateau": float(late.sharpness.mean()),
            # S per 100 steps over the late window, relative to 2/eta, with its interval: flat iff it contains 0
            "late_slope": slope * 100 * eta / 2, "late_slope_lo": slope_lo * 100 * eta / 2,
            "late_slope_hi": slope_hi * 100 * eta / 2,
            "flat": bool(np.isfinite(slope_lo) and slope_lo <= 0 <= slope_hi),
            "eos_onset": onset, "eos_reached": bool(np.isfinite(onset)), "eos_complete": complete,
            # the run's amplitude counts under the common-seed rule: with a stopping rule it met the rule, else it
            # reached the EoS (common_seeds)
            "eos_measured": bool(complete if eos_window is not None else np.isfinite(onset)),
            "osc_amplitude": amplitude,
            "osc_std_late": float(late.sharpness.std(ddof=0)),
            "loss_osc": loss_oscillation(trace, onset),
            "alignment": float(late.alignment.abs().mean()),
            "kernel_velocity": float(np.nanmean(late.kernel_velocity)) if late.kernel_velocity.notna().any()
            else float("nan"),
            "threshold": threshold,
            "final_loss": float(trace.loss.iloc[-1]), "final_accuracy": float(trace.accuracy.iloc[-1]),
            "steps": int(steps[-1])}


METRICS = ["sharpening_time", "sharpening_rate", "plateau", "late_slope", "eos_onset",
           "osc_amplitude", "osc_std_late", "loss_osc", "alignment",
           "kernel_velocity", "final_loss", "final_accuracy"]


def main_table(traces: pd.DataFrame, sharpening_fraction: float, late_fraction: float,
               eos_windows: Mapping[str, int | None] | None = None, flat_level: float = 0.95) -> pd.DataFrame:
    """tables/main.csv: seed means (and seed standard deviations) of every metric per (arch, decay, eta, lambda).
    eos_onset and osc_amplitude average the seeds that reached the EoS (eos_reached_fraction says how many);
    eos_complete_fraction: the seeds whose run met the arch's EoS stopping rule before the hard cap (eos_windows:
    arch -> grid.<arch>.eos_checkpoints; an arch not in it has no rule)."""
    return aggregate(run_table(traces, sharpening_fraction, late_fraction, eos_windows, flat_level), eos_windows)


def run_table(traces: pd.DataFrame, sharpening_fraction: float, late_fraction: float,
              eos_windows: Mapping[str, int | None] | None = None, flat_level: float = 0.95) -> pd.DataFrame:
    """tables/runs.csv: one row of summarise_run per run (arch, decay, eta, lambda, seed); the trend criteria of the
    claims (paper_claims.within_seed_trend) read every run, not only the seed means."""
    windows = dict(eos_windows or {})
    return pd.DataFrame([summarise_run(t, sharpening_fraction, late_fraction, windows.get(key[0]), flat_level)
                         for key, t in traces.groupby(KEYS + ["seed"], sort=True)])


def aggregate(runs: pd.DataFrame, eos_windows: Mapping[str, int | None] | None = None) -> pd.DataFrame:
    """The seed means of main_table from a run table."""
    windows = dict(eos_windows or {})
    grouped = runs.groupby(KEYS, sort=True)
    metrics = [m for m in METRICS if m in runs]
    table = grouped[metrics].mean()
    table = table.join(grouped[metrics].std(ddof=0).add_suffix("_sd"))
    table["reached_fraction"] = grouped["reached"].mean()
    for flag in ("rate_censored", "flat"):  # run tables written before issue #71 have neither
        if flag in runs:
            table[f"{flag}_fraction"] = grouped[flag].mean()
    table["eos_reached_fraction"] = grouped["eos_reached"].mean()
    table["eos_complete_fraction"] = grouped["eos_complete"].mean()
    table["threshold"] = grouped["threshold"].first()
    table["plateau_ratio"] = table["plateau"] / table["threshold"]
    table["seeds"] = grouped.size()
    common = common_eos_amplitude(runs, windows)
    return table.join(common).reset_index()


def common_eos_amplitude(runs: pd.DataFrame, eos_windows: Mapping[str, int | None]) -> pd.DataFrame:
    """The rule for runs without a measured EoS window (issue 29, fixed before the final runs; README): per (arch,
    decay, eta), the seeds whose run has one at EVERY lambda of that group (for an arch with a stopping rule: the run
    met the rule before the cap, so its window has the same length as every other; without a rule: it reached the EoS
    and has an amplitude). osc_amplitude_common = the mean amplitude over those seeds only, so every lambda averages
    the same seeds; eos_common_seeds = how many they are. Runs left out are counted, never imputed."""
    rows = []
    for key, group in runs.groupby(KEYS[:3], sort=True):
        seeds = common_seeds(group)
        for wd, cell in group.groupby("wd"):
            kept = cell[cell.seed.isin(seeds)]
            rows.append({**dict(zip(KEYS, (*key, wd))), "eos_common_seeds": len(seeds),
                         "osc_amplitude_common": float(kept.osc_amplitude.mean()) if len(kept) else float("nan")})
    return pd.DataFrame(rows).set_index(KEYS)


def common_seeds(group: pd.DataFrame) -> set[int]:
    """The seeds of one (arch, decay, eta) group of runs with a measured EoS amplitude at every lambda of the group
    (eos_measured: with a stopping rule the run met it before the cap; without, the run reached the EoS)."""
    measured = group.eos_measured.astype(bool) & np.isfinite(group.osc_amplitude.astype(float))
    per_seed = group.assign(measured=measured).groupby("seed").agg(measured=("measured", "all"),
                                                                    cells=("wd", "nunique"))
    return {int(s) for s in per_seed.index[per_seed.measured & (per_seed.cells == group.wd.nunique())]}

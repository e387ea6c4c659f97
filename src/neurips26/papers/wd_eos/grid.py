"""The grid of one scale: per-arch step budgets and the EoS stopping rule (cheap to import: no torch)."""

from __future__ import annotations

from collections.abc import Sequence


def budget(cfg, arch: str) -> tuple[int, int]:
    """(max_steps, eig_freq) of one arch: grid.<arch>.max_steps / eig_freq where given, else the scale's values.
    With an EoS stopping rule (eos_window) max_steps is the hard cap."""
    spec = cfg.grid[arch]
    return int(spec.get("max_steps", cfg.max_steps)), int(spec.get("eig_freq", cfg.eig_freq))


def eos_window(cfg, arch: str) -> int | None:
    """grid.<arch>.eos_checkpoints: the run stops once this many checkpoints follow its EoS onset (None: no rule, the
    run takes the whole step budget). The same number sets the late window of that arch's summary (eos_window + 1
    checkpoints)."""
    value = cfg.grid[arch].get("eos_checkpoints")
    return None if value is None else int(value)


def eos_onset_index(sharpness: Sequence[float], threshold: float) -> int | None:
    """Index of the first checkpoint with S >= threshold (the EoS onset of summary.eos_oscillation), else None."""
    return next((i for i, s in enumerate(sharpness) if s >= threshold), None)


def eos_stop_index(sharpness: Sequence[float], threshold: float, window: int | None) -> int | None:
    """The stopping rule: the index of the checkpoint at which a run with these checkpoints stops, i.e. the
    `window`-th checkpoint after the EoS onset; None while the rule is not met (or there is no rule)."""
    if window is None:
        return None
    onset = eos_onset_index(sharpness, threshold)
    return None if onset is None or len(sharpness) - 1 < onset + window else onset + window

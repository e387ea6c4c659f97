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


def flat_rule(cfg, arch: str) -> tuple[int | None, float]:
    """(grid.<arch>.flat_checkpoints, grid.<arch>.flat_min_steps): the long design's rule that a run continues until S
    is flat over its last k checkpoints (issue #71 item 3; flatness.flat_stop); (None, 0) where the arch has none."""
    spec = cfg.grid[arch]
    value = spec.get("flat_checkpoints")
    return (None if value is None else int(value)), float(spec.get("flat_min_steps", 0))


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


REPLICATE_OFFSET = 1000  # replicate r of configured seed s runs at seed s + 1000 r (issue 29; README)


def replicates(grid, arch: str) -> int:
    """grid.<arch>.replicates: runs per configured seed and grid point (default 1)."""
    return int(grid[arch].get("replicates", 1))


def run_seeds(grid, arch: str, seeds: Sequence[int], offset: int = 0) -> list[int]:
    """The run seeds of one arch: each configured seed s runs at s + offset (the pre-registered fresh seeds,
    preregistration.fresh_offset) and its replicates at s + offset + 1000 r, r = 1 .. replicates - 1 (more runs per
    lambda without touching the configured seed sets, which stay below 1000)."""
    n = replicates(grid, arch)
    base = [int(s) + int(offset) for s in seeds]
    if any(not 0 <= b < REPLICATE_OFFSET for b in base) and n > 1:
        raise ValueError(f"with replicates the run seeds (configured + {offset}) must lie in [0, {REPLICATE_OFFSET}): "
                         f"{list(seeds)}")
    return [b + REPLICATE_OFFSET * r for r in range(n) for b in base]

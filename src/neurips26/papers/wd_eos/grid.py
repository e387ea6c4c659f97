"""The grid of one scale: per-arch step budgets (cheap to import: no torch)."""

from __future__ import annotations


def budget(cfg, arch: str) -> tuple[int, int]:
    """(max_steps, eig_freq) of one arch: grid.<arch>.max_steps / eig_freq where given, else the scale's values."""
    spec = cfg.grid[arch]
    return int(spec.get("max_steps", cfg.max_steps)), int(spec.get("eig_freq", cfg.eig_freq))

"""Development seeds and fresh seeds (issue #71, item 1; JOURNAL.md "Pre-registration of the fresh-seed run").

Every seed that a pilot or a run of the design process used is a development seed: it chose the design, so a verdict
read from it is not a test. The config's `preregistration` block names them (every run seed below `development_below`
after removing the CNN's replicate offset, plus `development_seeds`), and maps each configured seed s to the run seed
s + `fresh_offset`, so the configured seeds [0, 1, 2] run as the pre-registered fresh seeds 300, 301, 302. The claims
stage keeps only fresh runs (`split_runs`); development runs are excluded and counted, never used for a verdict."""

from __future__ import annotations

import pandas as pd

from neurips26.papers.wd_eos.grid import REPLICATE_OFFSET


def fresh_offset(cfg) -> int:
    """The offset from a configured seed to its run seed (0 without a pre-registration block)."""
    block = cfg.get("preregistration") if hasattr(cfg, "get") else None
    return int(block.get("fresh_offset", 0)) if block else 0


def base_seed(run_seed: int) -> int:
    """The seed a run seed replicates (the CNN's replicate r of seed s runs at s + 1000 r)."""
    return int(run_seed) % REPLICATE_OFFSET


def is_development(run_seed: int, cfg) -> bool:
    """True when the run seed (replicate offset removed) was used while the design was built."""
    block = cfg.get("preregistration") if hasattr(cfg, "get") else None
    if not block:
        return False
    base = base_seed(run_seed)
    return base < int(block.get("development_below", 0)) or base in {int(s) for s in block.get("development_seeds", [])}


def split_runs(runs: pd.DataFrame, cfg) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(fresh runs, development runs) of a run table."""
    if runs is None or not len(runs) or "seed" not in runs:
        return runs, runs.iloc[0:0] if runs is not None else runs
    dev = runs.seed.map(lambda s: is_development(int(s), cfg)).astype(bool)
    return runs[~dev], runs[dev]

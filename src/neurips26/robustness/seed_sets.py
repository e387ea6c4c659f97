"""The robustness seed sets: `robustness: {sets: K, size: m, first_seed: s}` gives K consecutive blocks of m seeds from s,
disjoint from the configured seeds (a seed counted twice, or one that chose the design, is not a fresh replicate)."""

from __future__ import annotations

from neurips26.common.pipeline.errors import UserError


def seed_sets(spec: dict, configured: list[int]) -> list[list[int]]:
    """The K seed sets, in order; UserError when one of them meets a configured seed."""
    sets, size, first = int(spec["sets"]), int(spec["size"]), int(spec["first_seed"])
    blocks = [list(range(first + k * size, first + (k + 1) * size)) for k in range(sets)]
    shared = sorted({seed for block in blocks for seed in block} & set(configured))
    if shared:
        raise UserError(f"config key 'robustness': seed set(s) from first_seed={first} (size {size}, {sets} sets) contain "
                        f"the configured seed(s) {shared}; choose a first_seed above {max(configured)}")
    return blocks


def set_name(seeds: list[int]) -> str:
    """A seed set's file-name form, 100-101-102: the file is named by what it holds, so a changed set is a new file."""
    return "-".join(str(seed) for seed in seeds)


def parse_set_name(name: str) -> list[int]:
    return [int(part) for part in name.split("-")]

"""What a pipeline stage receives: the resolved config, its input and output paths, the seed and its thread budget.

A paper exposes its stages as ``STAGES: dict[str, Callable[[StageContext], None]]`` in
``neurips26.papers.<paper_id>.stages``; `python -m neurips26 <paper_id> <stage>` runs one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from omegaconf import DictConfig


@dataclass
class StageContext:
    paper_id: str
    cfg: DictConfig
    inputs: list[Path] = field(default_factory=list)
    outputs: list[Path] = field(default_factory=list)
    seed: int | None = None
    threads: int = 1

    @property
    def output(self) -> Path:
        """The single output of a one-output stage."""
        if len(self.outputs) != 1:
            raise ValueError(f"stage expects exactly one --output, got {len(self.outputs)}")
        return self.outputs[0]

    def require_seed(self) -> int:
        if self.seed is None:
            raise ValueError("this stage needs --seed N")
        return self.seed

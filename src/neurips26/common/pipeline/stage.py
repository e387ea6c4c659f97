"""What a pipeline stage receives: the resolved config, its input and output paths, the seed and its thread budget.

A paper exposes its stages as ``STAGES: dict[str, Callable[[StageContext], None]]`` in
``neurips26.papers.<paper_id>.stages``; `python -m neurips26 <paper_id> <stage>` runs one of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from omegaconf import DictConfig

from neurips26.common.pipeline.errors import UserError


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


Stage = Callable[[StageContext], None]


def table_stage(build: Callable) -> Stage:
    """A stage that concatenates the per-seed run CSVs given as --input and writes build(frame) to --output."""

    def stage(ctx: StageContext) -> None:
        from neurips26.common.pipeline.artifacts import read_csvs, write_csv

        if not ctx.inputs:
            raise UserError("a table stage needs --input with the per-seed run CSVs")
        write_csv(ctx.output, build(read_csvs(ctx.inputs)))

    return stage


def figure_stage(draw: Callable) -> Stage:
    """A stage that draws one figure from one saved table (never from in-memory state)."""

    def stage(ctx: StageContext) -> None:
        import pandas as pd

        from neurips26.common.pipeline.plotting import save_figure

        if len(ctx.inputs) != 1:
            raise UserError("a figure stage reads exactly one table: give --input TABLE.csv")
        save_figure(draw(pd.read_csv(ctx.inputs[0])), ctx.output)

    return stage


def npz_figure_stage(draw: Callable) -> Stage:
    """A stage that draws one figure from one saved .npz of arrays (example images, rollout frames), read without
    pickle."""

    def stage(ctx: StageContext) -> None:
        import numpy as np

        from neurips26.common.pipeline.plotting import save_figure

        if len(ctx.inputs) != 1 or ctx.inputs[0].suffix != ".npz":
            raise UserError("this figure stage reads exactly one arrays file: give --input ARRAYS.npz")
        with np.load(ctx.inputs[0], allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
        save_figure(draw(arrays), ctx.output)

    return stage


def claims_stage(build: Callable, tables: tuple[str, ...], with_config: bool = True) -> Stage:
    """The claims stage of a paper whose verdicts are a function of its saved tables: reads one CSV per name in
    `tables` (given as --input in that order), calls build(*frames[, cfg]) -> claims and writes them."""

    def stage(ctx: StageContext) -> None:
        import pandas as pd

        if len(ctx.inputs) != len(tables):
            raise UserError(f"claims needs --input {' '.join(name + '.csv' for name in tables)}")
        frames = [pd.read_csv(path) for path in ctx.inputs]
        write_claims_and_metrics(ctx, build(*frames, *([ctx.cfg] if with_config else [])))

    return stage


def write_claims_and_metrics(ctx: StageContext, claims: list, extra_metrics: dict | None = None) -> None:
    """The claims stage's two outputs: claims.json (schema-checked verdicts with the run's provenance; the resolved
    config is the config.yaml beside it) and metrics.json (every measured value and verdict, for dvc metrics)."""
    from neurips26.common.pipeline.artifacts import write_json
    from neurips26.common.pipeline.claims import claim_metrics, plain_json, write_claims
    from neurips26.common.pipeline.run_provenance import run_provenance

    if len(ctx.outputs) != 2:
        raise UserError("the claims stage writes two files: --output claims.json metrics.json")
    provenance = run_provenance(ctx.paper_id, ctx.cfg, ctx.outputs[0].parent / "config.yaml")
    document = write_claims(ctx.outputs[0], ctx.paper_id, ctx.cfg, claims, provenance)
    write_json(ctx.outputs[1], plain_json({**claim_metrics(document["claims"]), **(extra_metrics or {})}))


def require_embedded(ctx: StageContext, real_sources: str) -> None:
    """Stop with a clear error when `data: real` asks for datasets this paper has not wired yet."""
    if ctx.cfg.data == "real":
        raise UserError(f"{ctx.paper_id}: data: real is not wired yet: no fetch entry and loader exist for {real_sources} "
                        "(see paper_scale in config/datasets.yaml); data: embedded is the supported mode")


def data_root(ctx: StageContext) -> Path:
    """The repository root whose data/ holds the stage's first input (<root>/data/raw/<id>/provenance.json), resolved
    through links (a robustness set's work folder links data/): where the hub's model cache lives beside the data."""
    if not ctx.inputs or ctx.inputs[0].name != "provenance.json":
        raise UserError(f"{ctx.paper_id}: expected --input data/raw/<dataset>/provenance.json first")
    return Path(ctx.inputs[0]).resolve().parents[3]


def prepared_data_dir(ctx: StageContext, dataset: str) -> Path:
    """The folder the data_prepare rule filled, checked through its provenance.json (the stage's first --input): the
    dataset and mode must match, and every file it records must still have its recorded sha256
    (`provenance.verified_input`, once per job). Every stage that reads data/raw/ gets its folder from here."""
    from neurips26.common.pipeline.provenance import verified_input

    if not ctx.inputs or ctx.inputs[0].name != "provenance.json" or not ctx.inputs[0].is_file():
        raise UserError(f"{ctx.paper_id}: expected --input data/raw/{dataset}/provenance.json")
    provenance = json.loads(ctx.inputs[0].read_text())
    if provenance.get("dataset") != dataset:
        raise UserError(f"{ctx.inputs[0]}: expected the provenance of dataset {dataset!r}, "
                        f"got {provenance.get('dataset')!r}")
    if provenance.get("mode") != ctx.cfg.data:
        raise UserError(f"{ctx.inputs[0]} was prepared with data: {provenance.get('mode')}, but the config says "
                        f"data: {ctx.cfg.data}")
    return verified_input(ctx.inputs[0].parent)

"""The stages the Snakemake rules call (`python -m neurips26 sparse_eos <stage> ...`): runs, tables, figures, claims."""

from __future__ import annotations

import json
from collections.abc import Callable

from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import StageContext, claims_stage, figure_stage, table_stage

# Loaded on first use: a job imports only what its stage needs (common/pipeline/lazy); the geometry job never imports torch.
data, experiments, figures, geometry, paper_claims, tables = lazy_modules(
    "neurips26.papers.sparse_eos", "data", "experiments", "figures", "geometry", "paper_claims", "tables"
)
# each drawn from the table workflow/rules/sparse_eos.smk names
FIGURES = ("gap_vs_dim", "gap_vs_receptive_field", "step_size", "patch_pca_spectrum", "activation_coverage")


def _folders(ctx: StageContext) -> dict:
    """source -> its verified data folder, from the --input provenance files (one per image source of the run, any
    order; data: real adds CIFAR-10)."""
    sources = data.image_sources(ctx.cfg.images, ctx.cfg.data)
    found = {}
    for path in ctx.inputs:
        try:
            dataset = json.loads(path.read_text()).get("dataset") if path.is_file() else None
        except (ValueError, AttributeError):
            raise UserError(f"sparse_eos: {path} is not a provenance.json written by data_prepare") from None
        found[dataset] = path
    folders = {}
    for source in sources:
        dataset = data.DATASETS[source]
        if dataset not in found:
            expected = " ".join(f"data/raw/{data.DATASETS[s]}/provenance.json" for s in sources)
            raise UserError(f"sparse_eos: this stage needs --input {expected} (no provenance of dataset {dataset!r} "
                            f"among {[str(p) for p in ctx.inputs]})")
        folders[source] = data.checked_dir(found[dataset], dataset)
    return folders


def _run(name: str) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        seed = ctx.require_seed()
        seed_everything(seed)  # every draw below comes from explicit generators; this only pins global state too
        if name == "sphere":
            frame = experiments.run_sphere(ctx.cfg, seed)
        elif name == "images":
            frame = experiments.run_images(ctx.cfg, seed, _folders(ctx))
        else:
            frame = geometry.run_geometry(ctx.cfg, seed, _folders(ctx))
        write_csv(ctx.output, frame)

    return stage


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run_sphere": _run("sphere"),
    "run_images": _run("images"),
    "run_geometry": _run("geometry"),
    "table_main": table_stage(deferred(tables, "table_main")),
    "table_geometry": table_stage(deferred(tables, "table_geometry")),
    **{f"figure_{name}": figure_stage(deferred(figures, name)) for name in FIGURES},
    "claims": claims_stage(deferred(paper_claims, "build"), ("main", "geometry")),
}

"""The stages the Snakemake rules call (`python -m neurips26 sparse_eos <stage> ...`): runs, tables, figures, claims."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.artifacts import write_csv
from neurips26.common.errors import UserError
from neurips26.common.lazy import deferred, lazy_modules
from neurips26.common.seeding import seed_everything
from neurips26.common.stage import (
    StageContext,
    claims_stage,
    figure_stage,
    require_embedded,
    table_stage,
)

# Loaded on first use: each job imports only what its stage needs (common/lazy.py).
data, experiments, figures, paper_claims, tables = lazy_modules(
    "neurips26.papers.sparse_eos", "data", "experiments", "figures", "paper_claims", "tables"
)


def _folders(ctx: StageContext) -> dict:
    if len(ctx.inputs) != 2:
        raise UserError("sparse_eos: this stage needs --input data/raw/dofp_lut_skimage/provenance.json "
                        "data/raw/fashion_mnist/provenance.json")
    return {"skimage": data.checked_dir(ctx.inputs[0], data.SKIMAGE_DATASET),
            "fashion": data.checked_dir(ctx.inputs[1], data.FASHION_DATASET)}


def _run(name: str) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        require_embedded(ctx, "CIFAR-10 / ImageNet patch statistics and conv nets on MNIST / CIFAR")
        seed = ctx.require_seed()
        seed_everything(seed)  # every draw below comes from explicit generators; this only pins global state too
        if name == "sphere":
            frame = experiments.run_sphere(ctx.cfg, seed)
        else:
            frame = getattr(experiments, f"run_{name}")(ctx.cfg, seed, _folders(ctx))
        write_csv(ctx.output, frame)

    return stage


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run_sphere": _run("sphere"),
    "run_images": _run("images"),
    "run_geometry": _run("geometry"),
    "table_main": table_stage(deferred(tables, "table_main")),
    "table_geometry": table_stage(deferred(tables, "table_geometry")),
    "figure_gap_vs_dim": figure_stage(deferred(figures, "gap_vs_dim")),
    "figure_gap_vs_receptive_field": figure_stage(deferred(figures, "gap_vs_receptive_field")),
    "figure_step_size": figure_stage(deferred(figures, "step_size")),
    "figure_patch_pca_spectrum": figure_stage(deferred(figures, "patch_pca_spectrum")),
    "figure_activation_coverage": figure_stage(deferred(figures, "activation_coverage")),
    "claims": claims_stage(deferred(paper_claims, "build"), ("main", "geometry")),
}

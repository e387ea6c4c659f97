"""The stages the Snakemake rules call (`python -m neurips26 docatlas <stage> ...`): run, tables, figures, claims."""

from __future__ import annotations

from collections.abc import Callable

from neurips26.common.pipeline.artifacts import write_csv, write_jsonl_gz
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.seeding import seed_everything
from neurips26.common.pipeline.stage import (
    StageContext,
    figure_stage,
    prepared_data_dir,
    require_embedded,
    write_claims_and_metrics,
)

# Loaded on first use (common/pipeline/lazy.py): a job imports only what its stage needs (figures bring matplotlib, the run
# brings the retriever, the generator and MiniLM; a table or claims job needs none of them).
figures, paper_claims, tables = lazy_modules("neurips26.papers.docatlas", "figures", "paper_claims", "tables")


def run(ctx: StageContext) -> None:
    """--input reports provenance.json [r_doc_pdf provenance.json]; --output episodes.csv rl_curve.csv
    trajectories.jsonl.gz."""
    from neurips26.common.pipeline.provenance import verified_input
    from neurips26.papers.docatlas import experiments, manuals

    require_embedded(ctx, "MMLongBench-Doc (Hugging Face yubo2333/MMLongBench-Doc)")
    if len(ctx.outputs) != 3:
        raise UserError("run writes three files: --output episodes.csv rl_curve.csv trajectories.jsonl.gz")
    prepared_data_dir(ctx, "docatlas_reports")
    if ctx.cfg.manuals.enabled:
        if len(ctx.inputs) != 2:
            raise UserError("with manuals.enabled, run needs --input data/raw/docatlas_reports/provenance.json "
                            "data/raw/r_doc_pdf/provenance.json")
        manuals.MANUAL_DIR = verified_input(ctx.inputs[1].parent)
    seed = ctx.require_seed()
    seed_everything(seed)
    episodes, curve, trajectories = experiments.run(ctx.cfg, seed)
    write_csv(ctx.outputs[0], episodes)
    write_csv(ctx.outputs[1], curve)
    write_jsonl_gz(ctx.outputs[2], trajectories)


def _table(build: Callable, kind: str) -> Callable[[StageContext], None]:
    def stage(ctx: StageContext) -> None:
        import pandas as pd

        frames = [pd.read_csv(p) for p in ctx.inputs]
        if not frames:
            raise UserError(f"table stage needs --input with the per-seed {kind} CSVs")
        write_csv(ctx.output, build(pd.concat(frames, ignore_index=True), ctx.cfg))

    return stage


def claims(ctx: StageContext) -> None:
    """--input runs/seed*/episodes.csv ... tables/rl_curve.csv: the claims are tested per seed on each seed's episodes
    (the tables pool the seeds); the learning curve gives the RL metrics."""
    import pandas as pd

    episodes = [p for p in ctx.inputs if p.name == "episodes.csv"]
    curve = [p for p in ctx.inputs if p.name == "rl_curve.csv" and p.parent.name == "tables"]
    if not episodes or len(curve) != 1 or len(episodes) + 1 != len(ctx.inputs):
        raise UserError("claims needs --input runs/seedN/episodes.csv ... tables/rl_curve.csv")
    frame = pd.concat([pd.read_csv(p) for p in episodes], ignore_index=True)
    write_claims_and_metrics(ctx, *paper_claims.build(frame, pd.read_csv(curve[0]), ctx.cfg))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run": run,
    "table_mmlb_style": _table(deferred(tables, "mmlb_style"), "episodes"),
    "table_ablation": _table(deferred(tables, "ablation"), "episodes"),
    "table_rl_curve": _table(deferred(tables, "rl_curve"), "rl_curve"),
    "figure_acc_vs_budget": figure_stage(deferred(figures, "acc_vs_budget")),
    "figure_ablation": figure_stage(deferred(figures, "ablation")),
    "figure_rl_curve": figure_stage(deferred(figures, "rl_curve")),
    "claims": claims,
}

"""The stages the Snakemake rules call (`python -m neurips26 cytometry_encoder <stage> ...`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from neurips26.common.pipeline.artifacts import atomic_path, write_csv, write_json, write_torch
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import lazy_modules
from neurips26.common.pipeline.seeding import seed_everything, set_threads
from neurips26.common.pipeline.stage import StageContext, figure_stage, table_stage, write_claims_and_metrics

# Loaded on first use: each job imports only what its stage needs (common/pipeline/lazy.py).
paper_claims, tables = lazy_modules("neurips26.papers.cytometry_encoder", "paper_claims", "tables")

# figure name -> drawn lazily: importing matplotlib costs every other job (the torch ones) 0.6 s for nothing
FIGURES = ("task_auroc", "scaling_capacity", "scaling_corpus", "marker_removal", "umap_embeddings", "control_null",
           "pretrain_loss")


def _n(ctx: StageContext, inputs: int | None, outputs: int, usage: str) -> None:
    if (inputs is not None and len(ctx.inputs) != inputs) or len(ctx.outputs) != outputs:
        raise UserError(f"{usage}")


def universe(ctx: StageContext) -> None:
    """Write the synthetic universe of run seed --seed (FCS files + manifest) into the --output folder: one world per
    seed (its draws from the seed's 'universe' streams)."""
    from neurips26.papers.cytometry_encoder.universe import generate

    _n(ctx, 0, 1, "universe writes one folder: --seed N --output DIR")
    if ctx.cfg.data != "embedded":
        raise UserError("the universe stage makes the embedded data; with data: real the studies come from the manifest")
    info = generate(ctx.cfg.universe, ctx.cfg.tasks, ctx.output, ctx.require_seed())
    write_json(ctx.output / "universe.json", info)


def fetch(ctx: StageContext) -> None:
    """data: real: download every public study of the manifest (--input) into data/raw/cytometry/ (sha256-checked)."""
    from neurips26.papers.cytometry_encoder.manifest import fetch_studies

    _n(ctx, 1, 1, "fetch needs --input MANIFEST.yaml --output data/raw/cytometry/provenance.json")
    write_json(ctx.output, {"dataset": "cytometry_studies", "mode": "real",
                            **fetch_studies(ctx.inputs[0], ctx.output.parent)})


def ingest(ctx: StageContext) -> None:
    """FCS studies -> one .h5ad per study, for run seed --seed (its world; its cells subsample).
    --seed N --input MANIFEST FCS_ROOT --output ANNDATA_DIR STUDIES.csv"""
    from neurips26.papers.cytometry_encoder.ingest import ingest as run

    _n(ctx, 2, 2, "ingest needs --seed N --input MANIFEST.yaml FCS_ROOT --output ANNDATA_DIR STUDIES.csv")
    run(ctx.inputs[0], ctx.inputs[1], ctx.outputs[0], ctx.outputs[1], ctx.cfg.fcs, real=ctx.cfg.data == "real",
        seed=ctx.require_seed())


def real_ingest(ctx: StageContext) -> None:
    """fcsparser's 13 readable real files -> one .h5ad each: --output REAL_ANNDATA_DIR REAL_FILES.csv (the cells kept
    drawn from the first configured seed, whose frozen encoder embeds them in the removal stage)"""
    from neurips26.papers.cytometry_encoder.real_fcs import ingest_real

    _n(ctx, 0, 2, "real_ingest needs --output REAL_ANNDATA_DIR REAL_FILES.csv")
    ingest_real(ctx.outputs[0], ctx.outputs[1], ctx.cfg.fcs, int(ctx.cfg.seeds[0]))


def marker_vectors(ctx: StageContext) -> None:
    """Frozen name vectors of every marker: --input ANNDATA_DIR [REAL_ANNDATA_DIR] --output VECTORS.npz"""
    import numpy as np

    from neurips26.papers.cytometry_encoder import marker_vectors as mv

    _n(ctx, None, 1, "marker_vectors needs --input ANNDATA_DIR [...] --output VECTORS.npz")
    arrays = mv.build(mv.marker_names(ctx.inputs), [str(ctx.cfg.model.names)])
    with atomic_path(ctx.output) as tmp, open(tmp, "wb") as handle:
        np.savez(handle, **arrays)


def _data_dir(ctx: StageContext) -> Path:
    if len(ctx.inputs) < 2 or not ctx.inputs[0].is_dir():
        raise UserError("expected --input ANNDATA_ROOT (the ingest stage's seed<N>/ folders of .h5ad studies) "
                        "VECTORS.npz first")
    return ctx.inputs[0]


def world_dir(root: Path, seed: int) -> Path:
    """The folder of run seed `seed`'s world under ROOT (runs/anndata/seed<N>, runs/universe/seed<N>)."""
    folder = Path(root) / f"seed{int(seed)}"
    if not folder.is_dir():
        raise UserError(f"{folder} is missing: every seed has its own world (rerun the universe / ingest stages)")
    return folder


def _over_seeds(ctx: StageContext, run: Callable, kind: str | None = None) -> list:
    """run(seed, samples, task_rows) for every configured seed, in one process: torch is imported once (seconds per
    job; see the rule file) and each seed reads its own world (ANNDATA_ROOT/seed<N>)."""
    from neurips26.common.models.allocator import keep_freed_memory
    from neurips26.papers.cytometry_encoder.experiments import load

    keep_freed_memory()  # where buffers come from, not what is computed (allocator.py: ~10 % of a training job)
    # (no torch.use_deterministic_algorithms: it imports torch's compiler, 1.3 s; the CPU kernels used are deterministic
    # at a fixed thread count, which the kill/rerun test checks byte for byte)
    set_threads(ctx.threads)
    root = _data_dir(ctx)
    results = []
    for seed in (int(s) for s in ctx.cfg.seeds):
        samples, task_rows = load(ctx.cfg, world_dir(root, seed), ctx.inputs[1], kind)
        seed_everything(seed)
        results.append(run(seed, samples, task_rows))
    return results


def pretrain(ctx: StageContext) -> None:
    """One sweep point (override variant=NAME), every seed: --output RUN.csv MODELS.pt (seed -> state dict) LOSS.csv"""

    from neurips26.papers.cytometry_encoder.experiments import run_pretrain, variants

    _n(ctx, 2, 3, "pretrain needs --input ANNDATA_ROOT VECTORS.npz --output RUN.csv MODELS.pt LOSS.csv")
    names = variants(ctx.cfg)
    if ctx.cfg.get("variant") not in names:
        raise UserError(f"pretrain needs the override variant=NAME with NAME in {list(names)}")
    results = _over_seeds(ctx, lambda seed, samples, tasks: run_pretrain(ctx.cfg, seed, samples, tasks, ctx.cfg.variant),
                          kind=names[ctx.cfg.variant][2])
    write_csv(ctx.outputs[0], pd.concat([rows for rows, _, _ in results], ignore_index=True))
    write_torch(ctx.outputs[1], {int(s): state for s, (_, state, _) in zip(ctx.cfg.seeds, results)})
    write_csv(ctx.outputs[2], pd.concat([losses for _, _, losses in results], ignore_index=True))


def removal(ctx: StageContext) -> None:
    """--input ANNDATA_ROOT VECTORS.npz base.pt REAL_ANNDATA_DIR --output RUN.csv EMBEDDINGS.npz CONTROL_NULL.csv
    REAL_EMBEDDINGS.npz: marker removal; the first seed's embeddings, for the UMAP; the negative control's permutation
    null; the first seed's frozen encoder on the real instrument files (one torch process for all four)."""
    import numpy as np
    import torch

    from neurips26.papers.cytometry_encoder.experiments import embed_real, run_removal

    _n(ctx, 4, 4, "removal needs --input ANNDATA_ROOT VECTORS.npz MODELS.pt REAL_ANNDATA_DIR"
       " --output RUN.csv EMBEDDINGS.npz NULL.csv REAL_EMBEDDINGS.npz")
    states = torch.load(ctx.inputs[2], weights_only=True)
    missing = [int(s) for s in ctx.cfg.seeds if int(s) not in states]
    if missing:
        raise UserError(f"{ctx.inputs[2]} holds no encoder for seeds {missing}: rerun the pretrain stage")
    first = int(ctx.cfg.seeds[0])
    results = _over_seeds(ctx, lambda seed, samples, tasks: run_removal(ctx.cfg, seed, samples, tasks, states[seed],
                                                                        with_embeddings=seed == first))
    write_csv(ctx.outputs[0], pd.concat([rows for rows, _, _ in results], ignore_index=True))
    with atomic_path(ctx.outputs[1]) as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, **results[0][1])
    write_csv(ctx.outputs[2], pd.concat([null for _, _, null in results], ignore_index=True))
    seed = int(ctx.cfg.seeds[0])
    real = embed_real(ctx.cfg, ctx.inputs[3], ctx.inputs[1], states[seed], seed)
    with atomic_path(ctx.outputs[3]) as tmp, open(tmp, "wb") as handle:
        np.savez(handle, **real)


def specialists(ctx: StageContext) -> None:
    """One group of tasks' specialists (override specialist_group=G: the tasks G, G + n, ... of the n =
    jobs.specialist_groups groups), every seed: --input ANNDATA_ROOT VECTORS.npz --output RUN.csv. The groups are
    separate jobs so that no single job holds every specialist (the longest job of the default run before). The
    positive-control task gets no specialist: no claim reads it (its check is pretrained vs random-init)."""
    from neurips26.papers.cytometry_encoder.experiments import run_specialist

    _n(ctx, 2, 1, "specialists needs --input ANNDATA_ROOT VECTORS.npz --output RUN.csv")
    groups = int(ctx.cfg.jobs.specialist_groups)
    group = ctx.cfg.get("specialist_group")
    if group is None or not 0 <= int(group) < groups:
        raise UserError(f"specialists needs the override specialist_group=G with 0 <= G < {groups}")
    names = [str(t.name) for t in ctx.cfg.tasks if str(t.taxonomy) != "positive_control"][int(group)::groups]
    results = _over_seeds(ctx, lambda seed, samples, tasks: pd.concat(
        [run_specialist(ctx.cfg, seed, samples, tasks, task) for task in names], ignore_index=True))
    write_csv(ctx.output, pd.concat(results, ignore_index=True))


def baselines(ctx: StageContext) -> None:
    """Every baseline on every task, every seed: --input ANNDATA_ROOT VECTORS.npz [UNIVERSE_ROOT] --output RUN.csv
    (UNIVERSE_ROOT/seed<N>/frequencies.csv: the embedded world's true population frequencies, for the frequency
    ceiling)."""
    from neurips26.papers.cytometry_encoder.experiments import run_baselines
    from neurips26.papers.cytometry_encoder.universe import read_frequencies

    usage = "baselines needs --input ANNDATA_ROOT VECTORS.npz [UNIVERSE_ROOT] --output RUN.csv"
    _n(ctx, None, 1, usage)
    if len(ctx.inputs) not in (2, 3):
        raise UserError(usage)

    def truth(seed: int):
        return read_frequencies(world_dir(ctx.inputs[2], seed) / "frequencies.csv") if len(ctx.inputs) == 3 else None

    results = _over_seeds(ctx, lambda seed, samples, tasks: run_baselines(ctx.cfg, seed, samples, tasks, truth(seed)))
    write_csv(ctx.output, pd.concat(results, ignore_index=True))


def umap(ctx: StageContext) -> None:
    """--input EMBEDDINGS.npz --output tables/umap.csv"""
    import numpy as np

    from neurips26.papers.cytometry_encoder.embedding_map import umap_table

    _n(ctx, 1, 1, "umap needs --input EMBEDDINGS.npz --output UMAP.csv")
    set_threads(ctx.threads)
    with np.load(ctx.inputs[0], allow_pickle=False) as data:
        embeddings = {k: data[k] for k in data.files}
    write_csv(ctx.output, umap_table(embeddings, str(ctx.cfg.umap.method), int(ctx.cfg.umap.neighbours),
                                     int(ctx.cfg.seeds[0])))


def _figure(name: str) -> Callable[[StageContext], None]:
    def draw(table: pd.DataFrame):
        from neurips26.papers.cytometry_encoder import figures

        return figures.FIGURES[name][1](table)

    return figure_stage(draw)


CLAIM_TABLES = ("tasks", "tasks_seeds", "scaling_seeds", "removal", "removal_seeds", "control_null", "pretrain_loss")


def claims(ctx: StageContext) -> None:
    """--input the CLAIM_TABLES' CSVs in that order --output claims.json metrics.json: the claims (contract v2) and,
    beside their measured values in metrics.json, the pretraining convergence check (paper_claims.build's extras)."""
    if len(ctx.inputs) != len(CLAIM_TABLES):
        raise UserError(f"claims needs --input {' '.join(name + '.csv' for name in CLAIM_TABLES)}")
    frames = [pd.read_csv(path) for path in ctx.inputs]
    write_claims_and_metrics(ctx, *paper_claims.build(*frames, ctx.cfg))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "universe": universe,
    "fetch": fetch,
    "ingest": ingest,
    "real_ingest": real_ingest,
    "marker_vectors": marker_vectors,
    "pretrain": pretrain,
    "removal": removal,
    "specialists": specialists,
    "baselines": baselines,
    "umap": umap,
    **{f"table_{name}": table_stage(build) for name, build in tables.TABLES.items()},
    **{f"figure_{name}": _figure(name) for name in FIGURES},
    "claims": claims,
}

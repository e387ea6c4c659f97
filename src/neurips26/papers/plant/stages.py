"""The stages the Snakemake rules call (`python -m neurips26 plant <stage> ...`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from neurips26.common.pipeline.artifacts import write_csv, write_json, write_npz
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import lazy_modules
from neurips26.common.pipeline.seeding import seed_everything, set_threads
from neurips26.common.pipeline.stage import (
    StageContext,
    figure_stage,
    prepared_data_dir,
    table_stage,
    write_claims_and_metrics,
)
from neurips26.papers.plant import figures, tables

# Loaded on first use (common/pipeline/lazy): experiments brings torch and scikit-learn, which a table, figure or claims job
# never needs (tables and figures are named in STAGES below, so they load eagerly; both are light).
data, experiments, paper_claims, baselines = lazy_modules("neurips26.papers.plant", "data", "experiments",
                                                         "paper_claims", "baselines")

DATASET = "plant_medline"
STATE_KEYS = ("ids", "mask", "states", "vocab", "tokens")


def _require_embedded(ctx: StageContext) -> None:
    if ctx.cfg.data == "real":
        raise UserError("plant: data: real (MIMIC-III/IV, EURLex-4K, Wiki10-31K) is described in config/datasets.yaml "
                        "(paper_scale) but not wired yet; data: embedded (the bundled MEDLINE/MeSH task) is supported")


def prepare(ctx: StageContext) -> None:
    """--input data/raw/plant_medline/provenance.json --output data/seed<N>/dataset.json --seed N: the seed's own draw
    of documents and its train/dev/test split (issue #51)."""
    _require_embedded(ctx)
    c = ctx.cfg.dataset
    prepared = data.build(data.read_medline(prepared_data_dir(ctx, DATASET)), int(c.n_docs),
                          (float(c.train_fraction), float(c.dev_fraction)), int(c.rare_max), ctx.require_seed(),
                          int(c.get("extra_dev", 0)))
    write_json(ctx.output, prepared)


def _read_dataset(path: Path) -> data.Corpus:
    try:
        return data.corpus(json.loads(Path(path).read_text()))
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: cannot read the prepared plant dataset ({exc})") from None


def _read_states(path: Path) -> dict:
    try:
        with np.load(path, allow_pickle=False) as f:
            states = {k: f[k] for k in STATE_KEYS}
    except (OSError, KeyError, ValueError) as exc:
        raise UserError(f"{path}: not a plant token-state cache with {STATE_KEYS} ({exc}); rerun plant_cache") from None
    return states


def cache(ctx: StageContext) -> None:
    """--input data/seed<N>/dataset.json --output states/seed<N>/<backbone>.npz, backbone=<name>: the frozen token states
    of every doc of that seed's draw."""
    from neurips26.papers.plant import features

    set_threads(ctx.threads)
    backbone = str(ctx.cfg.get("backbone"))
    if backbone not in ctx.cfg.backbones:
        raise UserError(f"plant: backbone={backbone!r} is not one of the configured backbones {list(ctx.cfg.backbones)}")
    spec = ctx.cfg.backbones[backbone]
    corpus = _read_dataset(ctx.inputs[0])
    seed_everything(0)  # inference only: the states draw nothing at random (they depend on the texts alone)
    states = features.token_states(backbone, corpus.texts, int(ctx.cfg.max_tokens), int(spec.batch),
                                   spec.get("layer"))
    if ctx.cfg.get("precision", "float16") != "float16":
        states["states"] = states["states"].astype(ctx.cfg.precision)
    write_npz(ctx.output, states, compress=False)  # float16 states: deflate saved 7% for ~3 s, and each run job inflated


def run(ctx: StageContext) -> None:
    """--input dataset.json states.npz [main on MiniLM: tfidf.csv] --output run.csv [attention.csv],
    experiment=<main|ablation|fraction>. The MiniLM main run copies TF-IDF LR's row from the seed's tfidf job."""
    import torch

    from neurips26.common.models.allocator import keep_freed_memory

    keep_freed_memory()  # where buffers come from, not what is computed (common/models/allocator.py: ~13 % of a main run)
    set_threads(ctx.threads)
    seed = ctx.require_seed()
    seed_everything(seed)
    kind = str(ctx.cfg.get("experiment"))
    if not 2 <= len(ctx.inputs) <= 3 or kind not in ("main", "ablation", "fraction") or (
            len(ctx.inputs) == 3 and kind != "main"):
        raise UserError("run needs --input dataset.json states/<backbone>.npz [main: tfidf.csv] and "
                        "experiment=main|ablation|fraction")
    backbone = Path(ctx.inputs[1]).stem
    torch.set_num_threads(max(1, ctx.threads))
    tfidf = None
    if len(ctx.inputs) == 3:
        try:
            tfidf = {k: float(v) for k, v in pd.read_csv(ctx.inputs[2]).iloc[0].items()}
        except (OSError, KeyError, IndexError, ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise UserError(f"{ctx.inputs[2]}: cannot read TF-IDF LR's metrics ({exc!r})") from None
    frame, attention = experiments.run(kind, backbone, _read_states(ctx.inputs[1]), _read_dataset(ctx.inputs[0]),
                                       ctx.cfg, seed, tfidf)
    write_csv(ctx.outputs[0], frame)
    if len(ctx.outputs) > 1:
        write_csv(ctx.outputs[1], attention)


def tfidf(ctx: StageContext) -> None:
    """--input data/seed<N>/dataset.json --output runs/tfidf/seed<N>.csv: TF-IDF LR's test metrics on that seed's split
    (one row; liblinear's primal solver draws nothing: the seed's MiniLM main run copies it)."""
    set_threads(ctx.threads)
    write_csv(ctx.output, pd.DataFrame([baselines.tfidf_metrics(_read_dataset(ctx.inputs[0]), ctx.cfg)]))


def dataset_table(ctx: StageContext) -> None:
    """--input data/seed<N>/dataset.json ... --output tables/dataset.csv: the task's sizes and label bins, one row per
    seed (each seed draws its own documents and split)."""
    rows = [json.loads(Path(path).read_text())["stats"] for path in ctx.inputs]
    write_csv(ctx.output, pd.DataFrame(rows))


CLAIM_TABLES = ("main", "rare", "fraction", "ablation", "paired")


def claims(ctx: StageContext) -> None:
    """--input tables/{main,rare,fraction,ablation,paired}.csv --output claims.json metrics.json: the claims and, in
    metrics.json beside their values, the main and paired tables and the decoder runs that hit the epoch cap."""
    if len(ctx.inputs) != len(CLAIM_TABLES):
        raise UserError(f"claims needs --input {' '.join(name + '.csv' for name in CLAIM_TABLES)}")
    built, extra = paper_claims.build(*[pd.read_csv(path) for path in ctx.inputs])
    write_claims_and_metrics(ctx, built, extra)


STAGES: dict[str, Callable[[StageContext], None]] = {
    "prepare": prepare,
    "cache": cache,
    "run": run,
    "tfidf": tfidf,
    "table_dataset": dataset_table,
    **{f"table_{name}": table_stage(build) for name, build in tables.TABLES.items()},
    **{f"figure_{name}": figure_stage(draw) for name, (_, draw) in figures.FIGURES.items()},
    "claims": claims,
}

"""The stages the Snakemake rules call (`python -m neurips26 causal_compile <stage> ...`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from neurips26.common.pipeline.artifacts import write_csv
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.lazy import deferred, lazy_modules
from neurips26.common.pipeline.provenance import verified_input
from neurips26.common.pipeline.stage import StageContext, figure_stage, require_embedded, write_claims_and_metrics

# Each stage imports only what it needs (matplotlib, lxml, scipy are seconds of start-up in every job otherwise).
figures = lazy_modules("neurips26.papers.causal_compile", "figures")

DATASET = "causal_compile_pubmed"
RUN_FILES = ("kernels", "queries", "conflicts")


def run(ctx: StageContext) -> None:
    require_embedded(ctx, "the PubMed/PMC open-access corpus and the Human Phenotype Project cohort")
    seed = ctx.require_seed()
    if [p.stem for p in ctx.outputs] != list(RUN_FILES):
        raise UserError("run writes --output kernels.csv queries.csv conflicts.csv")
    from neurips26.common.pipeline.seeding import seed_everything
    from neurips26.papers.causal_compile import experiments

    seed_everything(seed)
    out = experiments.run(ctx.cfg, seed)
    for path, name in zip(ctx.outputs, RUN_FILES):
        write_csv(path, out[name])


def _gold(path: Path, columns: set[str]) -> pd.DataFrame:
    gold = pd.read_csv(path, dtype={"pmid": str})
    missing = columns - set(gold.columns)
    if missing:
        raise UserError(f"{path}: gold set lacks columns {sorted(missing)}")
    return gold


def run_real_text(ctx: StageContext) -> None:
    """The bundled RCT abstracts against the development gold set (labelled with the extractor in view), and the
    held-out gold abstracts (drawn and labelled by a written protocol before the extractor saw them)."""
    from neurips26.papers.causal_compile import real_gold, real_text

    require_embedded(ctx, "the PubMed/PMC open-access corpus")
    if len(ctx.inputs) != 3 or ctx.inputs[0].name != "provenance.json":
        raise UserError(f"real_text needs --input data/raw/{DATASET}/provenance.json <dev_gold>.csv <heldout_gold>.csv")
    folder = verified_input(ctx.inputs[0].parent)  # every recorded file still has its sha256
    provenance = json.loads(ctx.inputs[0].read_text())
    if provenance.get("dataset") != DATASET:
        raise UserError(f"{ctx.inputs[0]}: expected the provenance of {DATASET!r}, got {provenance.get('dataset')!r}")
    if len(ctx.outputs) != 2:
        raise UserError("real_text writes --output statements.csv summary.csv")
    files = [folder / name for name in sorted(provenance.get("files", {}))]
    dev = _gold(ctx.inputs[1], {"pmid", "kind", "estimate", "arm_a", "arm_b"})
    heldout = _gold(ctx.inputs[2], {"pmid", "kind", "scale", "estimate", "ci_low", "ci_high", "arm_a", "arm_b",
                                    "direction"})
    rows, summary = real_text.score(real_text.load_rct_abstracts(files), dev)
    try:
        abstracts = real_gold.load_abstracts(files, list(dict.fromkeys(heldout["pmid"])))
    except ValueError as exc:
        raise UserError(f"{ctx.inputs[2]}: {exc}") from None
    held_rows, held = real_gold.score(abstracts, heldout)
    statements = pd.concat([pd.DataFrame(rows).assign(gold_set="development"),
                            pd.DataFrame(held_rows).assign(gold_set="heldout")], ignore_index=True)
    write_csv(ctx.outputs[0], statements)
    write_csv(ctx.outputs[1], real_gold.summary_table(summary, held))


def _by_kind(ctx: StageContext) -> dict[str, pd.DataFrame]:
    """The per-seed run files given as --input, concatenated by kind (kernels, queries, conflicts)."""
    groups: dict[str, list[Path]] = {}
    for p in ctx.inputs:
        groups.setdefault(p.stem, []).append(p)
    return {k: pd.concat([pd.read_csv(p, keep_default_na=True) for p in v], ignore_index=True) for k, v in groups.items()}


def _fill(frame: pd.DataFrame) -> pd.DataFrame:
    for col in ("malformed", "missing"):
        if col in frame:
            frame[col] = frame[col].fillna("")
    return frame


TABLES = ("main", "conversion_bias", "conflict_pr", "executability", "cohort_validation")
FIGURES = ("conversion_bias_vs_p0", "conflict_pr", "executability_by_query", "cohort_validation")  # tables: see the rule


def all_tables(ctx: StageContext) -> None:
    """Every table from the per-seed run files (--input: the runs; --output: one CSV per name in TABLES)."""
    from neurips26.papers.causal_compile import tables

    if [p.stem for p in ctx.outputs] != list(TABLES):
        raise UserError(f"tables writes --output {' '.join(t + '.csv' for t in TABLES)}")
    f = _by_kind(ctx)
    if set(f) != {"kernels", "queries", "conflicts"}:
        raise UserError(f"tables needs --input kernels.csv queries.csv conflicts.csv of every seed, got {sorted(f)}")
    kernels, queries, conflicts = _fill(f["kernels"]), _fill(f["queries"]), f["conflicts"]
    built = {"main": tables.table_main(kernels, queries, conflicts),
             "conversion_bias": tables.table_conversion_bias(kernels, list(ctx.cfg.evaluation.p0_grid),
                                                             list(ctx.cfg.evaluation.rr_grid)),
             "conflict_pr": tables.table_conflict_pr(conflicts), "executability": tables.table_executability(queries),
             "cohort_validation": tables.table_cohort_validation(queries)}
    for path in ctx.outputs:
        write_csv(path, built[path.stem])


def claims(ctx: StageContext) -> None:
    names = ["main", "conversion_bias", "conflict_pr", "executability", "cohort_validation", "real_text", "kernels"]
    if len(ctx.inputs) < len(names) - 1:
        raise UserError(f"claims needs --input {' '.join(n + '.csv' for n in names[:-1])} and the kernel runs")
    frames = [pd.read_csv(p) for p in ctx.inputs[:6]]
    kernels = _fill(pd.concat([pd.read_csv(p) for p in ctx.inputs[6:]], ignore_index=True))
    from neurips26.papers.causal_compile import paper_claims

    write_claims_and_metrics(ctx, *paper_claims.build(*frames, kernels, ctx.cfg))


STAGES: dict[str, Callable[[StageContext], None]] = {
    "run": run,
    "real_text": run_real_text,
    "tables": all_tables,
    **{f"figure_{name}": figure_stage(deferred(figures, name)) for name in FIGURES},
    "claims": claims,
}

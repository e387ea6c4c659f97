"""Tables from the per-job run CSVs: parsing (edit distances, TEDS) and translation (BLEU, chrF, STEDS) by parser,
condition and severity ('all' pools the severities), with the relative drop of accuracy against the original
condition (accuracy = 1 - overall edit for parsing; the score itself for translation). The geometric capture
(severity 'geo', config `geometric`) gets its own rows and is not pooled into 'all' (which keeps the severity levels).
Column `seed`: 'all' for the rows pooled over seeds (what the figures draw), then the same rows computed on each seed's
runs alone. The claims test pages (`pages`: one row per page, parser, condition and severity) with a page bootstrap.
"""

from __future__ import annotations

import pandas as pd

GEOMETRIC = "geo"
CONDITIONS = ["original", "photographed", "unwarped", "oracle_unwarped"]
PARSING = ["overall_edit", "text_edit", "table_edit", "teds", "order_edit"]
TRANSLATION = ["bleu", "chrf", "meteor", "steds"]
PAGE_KEYS = ["seed", "kind", "page_id", "language", "parser", "condition", "severity"]


def _by_condition(runs: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Page means per (parser, condition, severity) plus severity 'all' (pooled over the photographed severities)."""
    runs = runs.copy()
    runs["severity"] = runs["severity"].astype(str)
    keys = ["parser", "condition", "severity"]
    per = runs.groupby(keys)[columns].mean()
    per["pages"] = runs.groupby(keys).size()
    per["seed_sd_" + columns[0]] = runs.groupby(keys + ["seed"])[columns[0]].mean().groupby(keys).std()
    pooled = runs[(runs.condition != "original") & (runs.severity != GEOMETRIC)].assign(severity="all")
    agg = pooled.groupby(keys)[columns].mean()
    agg["pages"] = pooled.groupby(keys).size()
    agg["seed_sd_" + columns[0]] = pooled.groupby(keys + ["seed"])[columns[0]].mean().groupby(keys).std()
    table = pd.concat([per, agg]).reset_index()
    table["condition"] = pd.Categorical(table.condition, CONDITIONS, ordered=True)
    return table.sort_values(["parser", "condition", "severity"]).reset_index(drop=True)


def _relative_drop(table: pd.DataFrame, accuracy: str) -> pd.Series:
    base = table[table.condition == "original"].set_index("parser")[accuracy]
    return (table.parser.map(base) - table[accuracy]) / table.parser.map(base)


def _per_seed(build, runs: pd.DataFrame) -> pd.DataFrame:
    """The table over all seeds (seed 'all') followed by the table of each seed's runs alone (seed '<n>')."""
    parts = [build(runs).assign(seed="all")]
    parts += [build(group).assign(seed=str(int(seed))) for seed, group in runs.groupby("seed", sort=True)]
    return pd.concat(parts, ignore_index=True)


def pages(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per page x parser x condition x severity with every score: the units the claims' page bootstrap
    resamples (every page is read under every condition, so conditions pair page by page)."""
    columns = [c for c in PAGE_KEYS + PARSING + TRANSLATION if c in runs.columns]
    return runs[columns].assign(severity=lambda f: f.severity.astype(str)).reset_index(drop=True)


def parsing(runs: pd.DataFrame) -> pd.DataFrame:
    return _per_seed(_parsing, runs)


def translation(runs: pd.DataFrame) -> pd.DataFrame:
    return _per_seed(_translation, runs)


def _parsing(runs: pd.DataFrame) -> pd.DataFrame:
    table = _by_condition(runs, PARSING)
    table["accuracy"] = 1.0 - table["overall_edit"]
    table["relative_drop"] = _relative_drop(table, "accuracy")
    found = runs[runs.condition == "unwarped"].assign(severity=lambda f: f.severity.astype(str))
    table["quad_found"] = table.set_index(["parser", "severity"]).index.map(
        found.groupby(["parser", "severity"]).quad_found.mean().to_dict()).where(table.condition == "unwarped")
    return table


def _translation(runs: pd.DataFrame) -> pd.DataFrame:
    table = _by_condition(runs, TRANSLATION)
    for metric in TRANSLATION:
        table[f"{metric}_relative_drop"] = _relative_drop(table, metric)
    return table

"""Tables from the per-question run rows (all seeds pooled): stage scores per system, dispersion, oracle study, judges."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.docscope.scorers import cohen_kappa

ORACLES = ["oracle_pages", "oracle_regions", "oracle_facts"]


def _stage_scores(g: pd.DataFrame) -> dict:
    """The official aggregates: page P/R/F1 macro over every question (unanswerable included, score_pages.py); region
    and fact labels counted over the judged items only (pages both gold and predicted; summarize_eval.py)."""
    ans = g[g["answerable"]]
    judged = ans["n_gold_boxes"].sum() - ans["n_unjudged"].sum()
    facts_judged = ans["n_fact_judged"].sum()
    correct = g[g["answer_correct"]]
    return {
        "n_questions": len(g),
        "page_precision": g["page_p"].mean(),
        "page_recall": g["page_r"].mean(),
        "page_f1": g["page_f1"].mean(),
        "region_score": ans["n_covered"].sum() / judged if judged else np.nan,  # covered / judged gold boxes
        "region_imprecise": ans["n_imprecise"].sum() / judged if judged else np.nan,
        "fact_score": ans["n_consistent"].sum() / facts_judged if facts_judged else np.nan,  # consistent / judged
        "facts_judged_share": facts_judged / ans["n_facts"].sum() if ans["n_facts"].sum() else np.nan,
        "answer_accuracy": g["answer_correct"].mean(),
        "chain_rate": g["chain_complete"].mean(),
        "chain_among_correct": correct["chain_complete"].mean() if len(correct) else np.nan,
        "chain_among_correct_answerable": correct[correct["answerable"]]["chain_complete"].mean(),
    }


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for system, g in runs.groupby("system", sort=True):
        row = {"system": system, **_stage_scores(g)}
        per_seed = [_stage_scores(s) for _, s in g.groupby("seed")]
        for key in ("answer_accuracy", "chain_among_correct", "region_score"):
            row[f"{key}_seed_min"] = min(p[key] for p in per_seed)
            row[f"{key}_seed_max"] = max(p[key] for p in per_seed)
        rows.append(row)
    return pd.DataFrame(rows)


DISTANCE_ORDER = {"near": 0, "mid": 1, "far": 2}
DISPERSION = {"distance_bin": "clusters", "clusters": "distance_bin"}  # factor -> the other factor, held fixed


def _level_order(factor: str, level) -> float:
    return DISTANCE_ORDER[level] if factor == "distance_bin" else float(level)


def table_dispersion(runs: pd.DataFrame, main_system: str) -> pd.DataFrame:
    """Rates per level of each dispersion factor (pooled: confounded with k and operation), then per cell
    (k, clusters, distance bin) of the questions with k >= 2 (how the stratified effect is built)."""
    g = runs[(runs["system"] == main_system) & runs["answerable"]]
    rows = []

    def add(factor, level, s):
        rows.append({"factor": factor, "level": str(level), "order": len(rows), "n": len(s),
                     "answer_accuracy": s["answer_correct"].mean(), "chain_rate": s["chain_complete"].mean(),
                     "page_recall": s["page_r"].mean()})  # fmt: skip

    for factor, levels in (("distance_bin", ["near", "mid", "far"]), ("clusters", sorted(g["clusters"].unique())),
                           ("n_evidence", sorted(g["n_evidence"].unique()))):  # fmt: skip
        for level in levels:
            s = g[g[factor] == level]
            if len(s):
                add(factor, level, s)
    cells = g[g["n_evidence"] >= 2]
    for (k, c, b), s in sorted(cells.groupby(["n_evidence", "clusters", "distance_bin"]),
                               key=lambda kv: (kv[0][0], kv[0][1], DISTANCE_ORDER[kv[0][2]])):  # fmt: skip
        add("cell", f"k={k} clusters={c} {b}", s)
    return pd.DataFrame(rows)


def stratified_drop(runs: pd.DataFrame, system: str, factor: str, column: str) -> float:
    """The dispersion effect within strata: for the answerable questions of `system` with k >= 2, in each stratum of
    (k, operation, the other factor) with two levels or more of `factor`, the rate at its lowest level minus at its
    highest; the weighted mean over strata (weights n_low n_high / (n_low + n_high), the inverse variance of a
    difference of two means up to a constant). NaN when no stratum has two levels."""
    g = runs[(runs["system"] == system) & runs["answerable"] & (runs["n_evidence"] >= 2)]
    diffs, weights = [], []
    for _, s in g.groupby(["n_evidence", "op", DISPERSION[factor]]):
        levels = sorted(s[factor].unique(), key=lambda v: _level_order(factor, v))
        if len(levels) < 2:
            continue
        low, high = s[s[factor] == levels[0]], s[s[factor] == levels[-1]]
        diffs.append(low[column].astype(float).mean() - high[column].astype(float).mean())
        weights.append(len(low) * len(high) / (len(low) + len(high)))
    return float(np.average(diffs, weights=weights)) if diffs else float("nan")


def table_oracle(runs: pd.DataFrame, main_system: str) -> pd.DataFrame:
    order = [main_system, *ORACLES]
    rows, prev, prev_chain = [], None, None
    for system in order:
        g = runs[runs["system"] == system]
        acc, chain = g["answer_correct"].mean(), g["chain_complete"].mean()
        base = runs[runs["system"] == main_system]
        rows.append({"variant": system, "answer_accuracy": acc, "chain_rate": chain,
                     "gain_over_system": acc - base["answer_correct"].mean(),
                     "marginal_gain": np.nan if prev is None else acc - prev,
                     "chain_marginal_gain": np.nan if prev is None else chain - prev_chain})  # fmt: skip
        prev, prev_chain = acc, chain
    return pd.DataFrame(rows)


def table_judge_kappa(cal: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for judge, g in cal.groupby("judge", sort=True):
        per_seed = [cohen_kappa(list(s["gold"]), list(s["judged"])) for _, s in g.groupby("seed")]
        rows.append({"judge": judge, "n": len(g), "kappa": cohen_kappa(list(g["gold"]), list(g["judged"])),
                     "kappa_seed_min": min(per_seed), "agreement": (g["gold"] == g["judged"]).mean(),
                     "gold_labels": ";".join(f"{k}={v}" for k, v in g["gold"].value_counts().sort_index().items())})  # fmt: skip  # noqa: E501
    return pd.DataFrame(rows)


def table_real(real: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame([{"system": s, **_stage_scores(g)} for s, g in real.groupby("system", sort=True)])

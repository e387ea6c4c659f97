"""The paper's tables, from the saved per-seed runs (kernels, queries, conflicts) and the real-text run."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from neurips26.papers.causal_compile import conversions as cv

METHODS = ("compiled", "naive", "flipped", "constant", "nocell", "pooled", "retrieval")
COMPILERS = ("compiled", "naive", "flipped", "constant")  # the compiler, no conversion, and the degenerate compilers
DETECTORS = (*COMPILERS, "nocell")
CONFLICT_STRATA = ("opposite_sign", "same_sign", "conversion")
LOOK_ALIKES = ("other_population", "other_horizon", "low_heterogeneity")
VALIDATED = ("do", "temporal", "heterogeneous")  # query types with a cohort estimate
# canonicalisation methods whose conversion is exact (the positive control of the canonicalisation claim)
EXACT_CONVERSIONS = ("log", "zhang_yu", "hr_to_rr", "smd", "md_over_sd")
P0_EDGES = np.linspace(0, 0.4, 9)  # baseline-risk bins of the measured conversion bias
VALUE = {"compiled": "value", "naive": "naive_value", "flipped": "flipped_value", "constant": "constant_value"}
CORRECT = {"compiled": "correct", "naive": "naive_correct", "flipped": "flipped_correct", "constant": "constant_correct"}


def _col(name: str, detector: str) -> str:
    return name if detector == "compiled" else f"{name}_{detector}"


def _sign_agree(a: pd.Series, b: pd.Series) -> float:
    return float((np.sign(a) == np.sign(b)).mean()) if len(a) else float("nan")


def _mean(series: pd.Series) -> float:
    return float(series.astype(float).mean()) if len(series) else float("nan")


def _conflict_counts(kernels: pd.DataFrame, conflicts: pd.DataFrame, detector: str) -> dict:
    """Per stratum: injected conflicts flagged / injected; per look-alike kind: look-alikes in a flagged pair that
    holds no injected conflict / look-alikes; precision of the flagged pairs at the default level."""
    flagged, false = _col("flagged", detector), _col("flagged_false", detector)
    out = {}
    for s in CONFLICT_STRATA:
        part = kernels[kernels["stratum"] == s]
        out.update({f"conflict_{s}_hits": int(part[flagged].sum()), f"conflict_{s}_n": len(part)})
    for s in LOOK_ALIKES:
        part = kernels[kernels["stratum"] == s]
        out.update({f"lookalike_{s}_flagged": int(part[false].sum()), f"lookalike_{s}_n": len(part)})
    hits = sum(out[f"conflict_{s}_hits"] for s in CONFLICT_STRATA)
    total = sum(out[f"conflict_{s}_n"] for s in CONFLICT_STRATA)
    d = conflicts[conflicts["default"] & (conflicts.get("detector", "compiled") == detector)]
    out.update(conflict_recall=hits / total if total else np.nan,
               lookalike_flag_rate=sum(out[f"lookalike_{s}_flagged"] for s in LOOK_ALIKES)
               / max(sum(out[f"lookalike_{s}_n"] for s in LOOK_ALIKES), 1),
               conflict_precision=float(d["true_pairs"].sum() / d["detected_pairs"].sum())
               if d["detected_pairs"].sum() else np.nan)
    return out


def _query_metrics(q: pd.DataFrame, executed_by_compiled: set) -> dict:
    """Execute decision against the truth (the cells the corpus holds), answers within tolerance of the SCM truth,
    and the cohort comparison on the validated query types (on the queries the compiler executes, so every method
    is compared on the same queries)."""
    ex, te = q["executable"].astype(bool), q["truth_executable"].astype(bool)
    v = q[q["type"].isin(VALIDATED) & ex & q["query"].isin(executed_by_compiled) & q["cohort_all"].fillna("").ne("")]
    binary = v[v["outcome_kind"] == "binary"]
    modified = v[v["type"].isin(["temporal", "heterogeneous"])]
    do = q[(q["type"] == "do") & ex]
    return {"executability": _mean(ex), "queries": len(q),
            "execute_precision": _mean(te[ex]), "execute_recall": _mean(ex[te]),
            "correct_when_executable": _mean(q.loc[te, "within_tolerance"]),
            "correct_when_executed": _mean(q.loc[ex, "within_tolerance"]),
            "cohort_agreement": _mean(v["cohort_agree"]), "cohort_queries": len(v),
            "cohort_error_binary": _mean(binary["cohort_error"]),
            "cohort_error_temporal_heterogeneous": _mean(modified["cohort_error"]),
            "do_executable": len(do), "do_median_abs_error": float(do["abs_error"].median()) if len(do) else np.nan,
            "do_sign_vs_cohort": _sign_agree(do["answer_main"], do["cohort"]),
            "do_sign_vs_truth": _sign_agree(do["answer_main"], do["truth_main"]),
            "median_abs_error_all": float(q.loc[ex, "abs_error"].median()) if ex.any() else np.nan}


def _main_rows(kernels: pd.DataFrame, queries: pd.DataFrame, conflicts: pd.DataFrame, seed) -> list[dict]:
    good = kernels[kernels["malformed"].isna() | (kernels["malformed"] == "")]
    bad = kernels[~kernels.index.isin(good.index)]
    # the edge estimate a method would use for each cell that holds an injected conflict, against the true edge effect
    hit = kernels[kernels["injected_conflict"] & kernels["extracted"]]
    cell_error = {"compiled": float((hit["cell_default"] - hit["truth_edge_effect"]).abs().mean()),
                  "pooled": float((hit["edge_pooled"] - hit["truth_edge_effect"]).abs().mean())}
    comp_q = queries[(queries["method"] == "compiled") & queries["executable"].astype(bool)]
    executed = set(comp_q["query"])
    bias = pd.DataFrame(_measured_bias(kernels))
    rows = []
    for m in METHODS:
        q = queries[queries["method"] == m]
        row = {"seed": seed, "method": m, "kernels": len(kernels),
               "studies": len(kernels[["seed", "study_id"]].drop_duplicates()),
               "canonical_accuracy": _mean(good[CORRECT[m]]) if m in CORRECT and CORRECT[m] in good else np.nan,
               "conflict_cell_abs_error": cell_error.get(m, np.nan),
               "bias_max": float(bias[f"{m}_bias"].max()) if m in VALUE and len(bias) >= 3 else np.nan}
        if f"heldout_converted_{m}" in kernels:
            row["heldout_conversion"] = _mean(kernels[f"heldout_converted_{m}"].dropna())
        if m in DETECTORS and _col("flagged", m) in kernels:
            row.update(_conflict_counts(kernels, conflicts, m))
        if len(q):
            row.update(_query_metrics(q, executed))
        if m == "compiled":
            exact = good[good["method"].isin(EXACT_CONVERSIONS)]
            row.update(exact_conversion_accuracy=_mean(exact["correct"]),
                       heldout_extraction=_mean(kernels["heldout_extracted"].dropna())
                       if "heldout_extracted" in kernels else np.nan,
                       malformed_rejected=_mean(bad["rejected"]), injected_kept=_mean(hit["kept_in_default"]),
                       conflict_cell_error_unchecked=float((hit["cell_pooled_all"] - hit["truth_edge_effect"])
                                                           .abs().mean()),
                       naive_bias_rho=float(bias["p0"].astype(float).corr(bias["naive_bias"], method="spearman"))
                       if len(bias) >= 3 else np.nan)
        elif m == "pooled":
            row.update(conflict_recall=0.0)  # pooling runs no conflict check
        rows.append(row)
    return rows


def table_main(kernels: pd.DataFrame, queries: pd.DataFrame, conflicts: pd.DataFrame) -> pd.DataFrame:
    rows = _main_rows(kernels, queries, conflicts, "all")
    for seed in sorted(kernels["seed"].unique()):
        rows += _main_rows(kernels[kernels["seed"] == seed], queries[queries["seed"] == seed],
                           conflicts[conflicts["seed"] == seed], int(seed))
    return pd.DataFrame(rows)


def _measured_bias(kernels: pd.DataFrame) -> list[dict]:
    """Mean absolute error of each compiler's canonical values of binary OR/HR kernels, per scale and baseline-risk
    bin (naive_bias: no conversion; compiled_bias: the compiler; flipped_bias, constant_bias: degenerate)."""
    rows = []
    k = kernels[(kernels["outcome_kind"] == "binary") & kernels["scale"].isin(["OR", "HR"]) & kernels["extracted"]]
    for scale, part in k.groupby("scale"):
        bins = pd.cut(part["baseline_risk"], P0_EDGES)
        for interval, cell in part.groupby(bins, observed=True):
            row = {"source": "measured", "scale": scale, "p0": interval.mid, "rr": np.nan, "n": len(cell)}
            for m, col in VALUE.items():
                if col in cell:
                    row[f"{m}_bias"] = float((cell[col] - cell["theta"]).abs().mean())
            rows.append(row)
    return rows


def table_conversion_bias(kernels: pd.DataFrame, p0_grid, rr_grid) -> pd.DataFrame:
    """Analytic naive bias (log OR - log RR, log HR - log RR) on a grid, and the measured errors of the naive and the
    compiled canonical values of binary OR/HR kernels, binned by baseline risk."""
    rows = []
    for p0 in p0_grid:
        for rr in rr_grid:
            if rr * p0 >= 1:
                continue
            rows.append({"source": "analytic", "scale": "OR", "p0": p0, "rr": rr, "n": np.nan,
                         "naive_bias": math.log(cv.rr_to_or(rr, p0)) - math.log(rr), "compiled_bias": 0.0})
            rows.append({"source": "analytic", "scale": "HR", "p0": p0, "rr": rr, "n": np.nan,
                         "naive_bias": math.log(cv.rr_to_hr(rr, p0)) - math.log(rr), "compiled_bias": 0.0})
    return pd.DataFrame(rows + _measured_bias(kernels))


def table_conflict_pr(conflicts: pd.DataFrame) -> pd.DataFrame:
    """The compiled detector at every CI level of the sweep."""
    if "detector" in conflicts:
        conflicts = conflicts[conflicts["detector"] == "compiled"]
    g = conflicts.groupby("level")
    return pd.DataFrame({"level": list(g.groups), "default": g["default"].first().to_numpy(),
                         "injected": g["injected"].sum().to_numpy(), "detected_pairs": g["detected_pairs"].sum().to_numpy(),
                         "true_pairs": g["true_pairs"].sum().to_numpy(),
                         "recall": (g.apply(lambda d: (d["recall"] * d["injected"]).sum() / d["injected"].sum(),
                                            include_groups=False)).to_numpy(),
                         "precision": (g["true_pairs"].sum() / g["detected_pairs"].sum()).to_numpy(),
                         "min_recall_over_seeds": g["recall"].min().to_numpy()})


def table_executability(queries: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (qtype, m), part in queries.groupby(["type", "method"], sort=False):
        missing = part.loc[~part["executable"], "missing"].fillna("")
        ex, te = part["executable"].astype(bool), part["truth_executable"].astype(bool)
        rows.append({"type": qtype, "method": m, "queries": len(part), "executable": float(ex.mean()),
                     "truly_executable": float(te.mean()), "execute_precision": _mean(te[ex]),
                     "execute_recall": _mean(ex[te]), "correct_when_executable": _mean(part.loc[te, "within_tolerance"]),
                     "not_executable_with_named_kernels": float(missing.str.contains("->").mean()) if len(missing)
                     else np.nan, "median_abs_error": float(part.loc[ex, "abs_error"].median()) if ex.any()
                     else np.nan})
    return pd.DataFrame(rows)


def table_cohort_validation(queries: pd.DataFrame) -> pd.DataFrame:
    """Every executed query of the validated types: the answer, the cohort estimate with its SE, the SCM truth."""
    v = queries[queries["type"].isin(VALIDATED) & queries["method"].isin(COMPILERS + ("pooled",))
                & queries["executable"].astype(bool)]
    return v[["seed", "query", "type", "target", "outcome_kind", "method", "answer_main", "cohort", "truth_main",
              "answer", "cohort_all", "cohort_se", "truth", "cohort_agree", "cohort_error"]].rename(
        columns={"answer_main": "compiled"}).reset_index(drop=True)

"""The abstract's claims (contract v2), from the saved tables. Per-seed values come from the per-seed rows of
tables/main.csv; thresholds from config `claims` (fixed before any run). See JOURNAL.md for each claim's old criterion
and its interval form."""

from __future__ import annotations

import pandas as pd

from neurips26.common.claims import Claim, Control, RuleTest, SeedTest, paired

ABSTRACT = "abstract: 'The system achieves 98.5% canonicalization accuracy, 100% conflict detection recall, and 80.5% " \
           "query executability.'"


def _row(main: pd.DataFrame, method: str, seed="all") -> pd.Series:
    return main[(main["method"] == method) & (main["seed"].astype(str) == str(seed))].iloc[0]


def _by_seed(main: pd.DataFrame, method: str, column: str) -> dict:
    rows = main[(main["method"] == method) & (main["seed"].astype(str) != "all")]
    return {int(s): float(v) for s, v in zip(rows["seed"], rows[column])}


def _canonicalisation(main: pd.DataFrame, th) -> Claim:
    comp = _row(main, "compiled")
    bound = float(th.canonical_accuracy)
    return Claim(
        "canonicalisation", "heterogeneous evidence is standardised into estimand objects with high canonicalisation "
        "accuracy (paper: 98.5%)",
        f"per-seed canonicalisation accuracy of the well-formed kernels (compiled): 95% t interval above {bound:g}",
        [SeedTest("canonicalisation accuracy (compiled)", _by_seed(main, "compiled", "canonical_accuracy"), ">", bound)],
        ["tables/main.csv"], {"value": 0.985, "where": ABSTRACT},
        controls=[
            Control("exact_conversions", "positive", "the same test on the kernels whose conversion is exact (RR, SMD, "
                    "MD, and OR/HR with the baseline risk reported): the test can pass",
                    SeedTest("canonicalisation accuracy, exact conversions",
                             _by_seed(main, "compiled", "exact_conversion_accuracy"), ">", bound)),
            Control("naive_conversion", "negative", "the same test on the naive canonical values (OR and HR taken as "
                    "RR, ln OR as SMD: no conversion): must not hold",
                    SeedTest("canonicalisation accuracy (naive)", _by_seed(main, "naive", "canonical_accuracy"), ">",
                             bound))],
        measured={"pooled_accuracy": comp["canonical_accuracy"], "naive_accuracy": _row(main, "naive")["canonical_accuracy"],
                  "kernels": comp["kernels"], "studies": comp["studies"], "malformed_rejected": comp["malformed_rejected"]})


def _conflicts(main: pd.DataFrame, th) -> Claim:
    comp = _row(main, "compiled")
    bar = float(th.conflict_recall)
    per_seed = _by_seed(main, "compiled", "conflict_recall")
    return Claim(
        "conflict_recall", "conflict-aware graph construction detects every injected conflict (paper: 100% recall)",
        f"recall of the injected conflicts >= {bar:g} on every seed and pooled (a count rule, not an interval)",
        [RuleTest("conflict recall, smallest over seeds",
                  {"min_seed_recall": min(per_seed.values()) if per_seed else None,
                   "pooled_recall": comp["conflict_recall"]},
                  holds_if=f"min_seed_recall >= {bar} and pooled_recall >= {bar}",
                  fails_if=f"min_seed_recall < {bar} or pooled_recall < {bar}",
                  rule=f"'100% recall' is a statement about every injected conflict, not a mean: holds when every seed's "
                       f"recall (and the pooled one) is >= {bar:g}, fails when one is below",
                  per_seed=per_seed)],
        ["tables/main.csv", "tables/conflict_pr.csv", "figures/conflict_pr.png"], {"value": 1.0, "where": ABSTRACT},
        measured={"precision": comp["conflict_precision"]})


def _executability(main: pd.DataFrame, execut: pd.DataFrame) -> Claim:
    comp = _row(main, "compiled")
    cq = execut[execut["method"] == "compiled"].set_index("type")
    named = float(cq["not_executable_with_named_kernels"].min()) if len(cq) else float("nan")
    return Claim(
        "executability", "the six query types execute when their kernels exist and otherwise return 'not executable' "
        "naming the missing kernels (paper: 80.5% executability)",
        "decided on the real corpus only: the embedded world's executability is set by which kernels its generator "
        "leaves out, so it cannot test the paper's 80.5%. Shown here: per-seed share of executable queries (compiled), "
        "95% t interval below 1; and every non-executable query of every type names its missing kernels (a count rule)",
        [SeedTest("executability (compiled)", _by_seed(main, "compiled", "executability"), "<", 1.0),
         RuleTest("non-executable queries naming their missing kernels, smallest share over query types",
                  {"named_missing": named}, holds_if="named_missing >= 1", fails_if="named_missing < 1",
                  rule="every non-executable query must name the kernels it lacks: holds when the smallest share over "
                       "the six query types is 1, fails otherwise")],
        ["tables/main.csv", "tables/executability.csv", "figures/executability_by_query.png"],
        {"value": 0.805, "where": ABSTRACT + " (reported beside ours, not a threshold)"},
        decided_at="paper", decided_data="real",
        measured={"pooled_executability": comp["executability"],
                  **{f"executable_{t}": cq.loc[t, "executable"] for t in cq.index}})


def _naive_bias(main: pd.DataFrame, bias: pd.DataFrame) -> Claim:
    measured_bias = bias[bias["source"] == "measured"]
    rho = measured_bias["p0"].corr(measured_bias["naive_bias"], method="spearman") if len(measured_bias) > 2 \
        else float("nan")
    return Claim(
        "naive_bias_grows", "taking OR (or HR) as RR is biased, and the bias grows with the baseline risk p0; the "
        "compiled conversion removes it",
        "per seed, over the p0 bins of the binary OR/HR kernels: Spearman rho(p0, naive error) 95% t interval above "
        "0.5, and the paired largest bin error naive - compiled 95% t interval above 0",
        [SeedTest("Spearman rho(p0, naive error)", _by_seed(main, "compiled", "naive_bias_rho"), ">", 0.5),
         SeedTest("largest bin error naive - compiled",
                  paired(_by_seed(main, "compiled", "naive_bias_max"), _by_seed(main, "compiled", "compiled_bias_max")),
                  ">", 0.0)],
        ["tables/main.csv", "tables/conversion_bias.csv", "figures/conversion_bias_vs_p0.png"],
        {"value": None, "where": "not in the abstract (the brief's criterion; the paper's conversion section)"},
        source="brief",
        measured={"pooled_rho": rho, "pooled_naive_max_error": measured_bias["naive_bias"].max(),
                  "pooled_compiled_max_error": measured_bias["compiled_bias"].max()})


def _cohort(main: pd.DataFrame, th) -> Claim:
    comp = _row(main, "compiled")
    bound = float(th.cohort_sign_agreement)
    return Claim(
        "cohort_agreement", "compiled do-query answers agree with the real-world (here: simulated) cohort in sign",
        f"per-seed share of executable do-queries whose compiled answer has the sign of the backdoor-adjusted cohort "
        f"estimate: 95% t interval above {bound:g}",
        [SeedTest("do-query sign agreement with the cohort (compiled)",
                  _by_seed(main, "compiled", "do_sign_vs_cohort"), ">", bound)],
        ["tables/main.csv", "tables/cohort_validation.csv", "figures/cohort_validation.png"],
        {"value": None, "where": "abstract: validation on the Human Phenotype Project (10,000 participants); no "
                                 "agreement number is given there"},
        source="brief",
        measured={"pooled_agreement": comp["do_sign_vs_cohort"], "truth_agreement": comp["do_sign_vs_truth"],
                  "queries": comp["do_executable"], "pooled_method_agreement": _row(main, "pooled")["do_sign_vs_cohort"],
                  "naive_agreement": _row(main, "naive")["do_sign_vs_cohort"]})


def _paper_scale(real: pd.DataFrame) -> Claim:
    r = dict(zip(real["metric"], real["value"]))
    return Claim(
        "paper_scale", "DoAtlas-1 compiles 1,445 effect kernels from 754 studies and validates on the Human Phenotype "
        "Project (10,000 participants)",
        "at scale=paper data=real: the 754-study corpus compiled by an LLM extractor, canonicalisation and conflict "
        "recall scored on a gold set, and validation on the HPP cohort (not wired)", [], ["tables/real_text.csv"],
        {"value": "1,445 kernels from 754 studies; HPP 10,000 participants",
         "where": "abstract: 'compiling 1,445 effect kernels from 754 studies ... (Human Phenotype Project, 10,000 "
                  "participants)'"},
        decided_at="paper", decided_data="real",
        why_not_tested="needs the paper's 754-study PubMed/PMC corpus with an LLM extractor and the HPP cohort (by "
                       "application only); offline, the 162 bundled RCT abstracts are run through the rule-based "
                       "extractor (numbers in measured) and the cohort is simulated",
        measured={"real_abstracts": r["abstracts"], "real_statements": r["statements"],
                  "real_schema_valid": r["schema_valid"], "gold_recall": r["recall"], "gold_precision": r["precision"]})


def _auditable() -> Claim:
    return Claim(
        "auditable_reasoning", "causal compilation shifts medical AI from text generation to executable, auditable and "
        "verifiable causal reasoning", "not an experimental claim", [], ["tables/executability.csv"],
        {"value": None, "where": "abstract, last sentence"},
        why_not_tested="a statement of the paradigm's aim with no measurable quantity; its measurable parts are the "
                       "other claims (executable queries, conflict detection, canonicalisation)")


def build(main, bias, pr, execut, cohort_tab, real, kernels_ok, cfg) -> tuple[list[Claim], dict]:
    """`pr`, `cohort_tab` and `kernels_ok` (the pooled accuracy of exact conversions) are kept in the signature the
    claims stage calls; the per-seed values come from tables/main.csv."""
    th = cfg.claims
    claims = [_canonicalisation(main, th), _conflicts(main, th), _executability(main, execut), _naive_bias(main, bias),
              _cohort(main, th), _paper_scale(real), _auditable()]
    return claims, {"exact_conversion_accuracy_pooled": kernels_ok}

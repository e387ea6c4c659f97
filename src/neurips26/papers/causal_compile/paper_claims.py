"""The abstract's claims (contract v2), from the saved tables. Per-seed values come from the per-seed rows of
tables/main.csv; thresholds from config `claims` (fixed before any run of this design, issue 56).

Every claim's tests are written once as a function of the compiler they judge (`subject`). The claim is those tests on
the compiler; its negative controls are the same tests, by the same code, on the degenerate compilers (no conversion,
sign-flipped, constant) and detectors (no conversion, no cell rule): each must not hold. Nothing in a control is typed
in; see tests/unit/test_causal_compile_claims.py."""

from __future__ import annotations

import pandas as pd
from scipy.special import betaincinv

from neurips26.common.pipeline.claims import Claim, Control, RuleTest, SeedTest, paired
from neurips26.papers.causal_compile.heldout import bootstrap_interval

ABSTRACT = "abstract: 'The system achieves 98.5% canonicalization accuracy, 100% conflict detection recall, and 80.5% " \
           "query executability.'"
CONFLICT_STRATA = ("opposite_sign", "same_sign", "conversion")
LOOK_ALIKES = ("other_population", "other_horizon", "low_heterogeneity")
DEGENERATE = {"naive": "no conversion (OR and HR taken as RR, ln OR as SMD)",
              "flipped": "every canonical value with the wrong sign",
              "constant": "every canonical value replaced by the corpus mean",
              "nocell": "the compiled values, conflicts looked for per edge (no population / horizon cell rule)"}


def _row(main: pd.DataFrame, method: str, seed="all") -> pd.Series:
    return main[(main["method"] == method) & (main["seed"].astype(str) == str(seed))].iloc[0]


def _by_seed(main: pd.DataFrame, method: str, column: str) -> dict:
    rows = main[(main["method"] == method) & (main["seed"].astype(str) != "all")]
    return {int(s): float(v) for s, v in zip(rows["seed"], rows[column])} if column in rows else {}


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval of k successes in n trials."""
    if n <= 0:
        return float("nan"), float("nan")
    a = (1 - level) / 2
    low = float(betaincinv(k, n - k + 1, a)) if k > 0 else 0.0
    high = float(betaincinv(k + 1, n - k, 1 - a)) if k < n else 1.0
    return low, high


def all_of(name: str, tests: list) -> RuleTest:
    """One test that holds when every test of a claim holds and fails when one fails (a control's test)."""
    outcomes = [t.outcome()[0] for t in tests]
    return RuleTest(name, {"holding": outcomes.count("holds"), "failing": outcomes.count("fails"),
                           "tests": len(outcomes)}, holds_if="holding == tests", fails_if="failing >= 1",
                    rule="holds when every test of the claim holds on this compiler, fails when one fails")


def _negative(claim_tests, frames, th, ids) -> list[Control]:
    return [Control(f"{d}_compiler", "negative", f"the claim's own tests on the degenerate compiler: {DEGENERATE[d]}; "
                    "must not hold", all_of(f"the claim's tests on {d}", claim_tests(frames, th, d))) for d in ids]


def _bootstrap(f, column: str, resamples: int) -> dict:
    kernels = f.get("kernels")
    if kernels is None or column not in kernels:
        return {"accuracy": None, "low": None, "high": None, "kernels": 0}
    values = kernels[column].dropna().astype(float)
    mean, low, high = bootstrap_interval(values, resamples)
    return {"accuracy": mean, "low": low, "high": high, "kernels": len(values)}


def canonicalisation_tests(f, th, m: str) -> list:
    """Accuracy on the generator's templates (per seed) and the conversion of the held-out statements (the gold
    records of text the extractor was not written for), with a kernel-bootstrap interval."""
    bar = float(th.canonical_accuracy)
    return [SeedTest(f"canonicalisation accuracy ({m})", _by_seed(f["main"], m, "canonical_accuracy"), ">", bar),
            RuleTest(f"held-out statements, conversion accuracy ({m})",
                     _bootstrap(f, f"heldout_converted_{m}", int(f["resamples"])), holds_if=f"low > {bar}",
                     fails_if=f"high < {bar}", rule=f"kernel-bootstrap 95% interval over all seeds: holds when its "
                     f"lower bound is above {bar:g}, fails when its upper bound is below")]


def conflict_tests(f, th, m: str) -> list:
    """Per stratum: the exact binomial interval of recall over every seed's injected conflicts against the bar; the
    look-alike non-conflicts flagged (in a pair without an injected conflict) against their bar."""
    row, bar, la_bar = _row(f["main"], m), float(th.conflict_recall), float(th.look_alike_flag_rate)
    tests = []
    for s in CONFLICT_STRATA:
        k, n = int(row[f"conflict_{s}_hits"]), int(row[f"conflict_{s}_n"])
        low, high = clopper_pearson(k, n)
        tests.append(RuleTest(f"recall, {s} conflicts ({m})", {"recall": k / n if n else None, "low": low,
                                                                "high": high, "detected": k, "injected": n},
                              holds_if=f"low >= {bar}", fails_if=f"high < {bar}",
                              rule=f"exact 95% binomial interval over all seeds: holds when its lower bound is >= "
                                   f"{bar:g}, fails when its upper bound is below",
                              per_seed=_by_seed(f["main"], m, f"conflict_{s}_hits")))
    k = int(sum(row[f"lookalike_{s}_flagged"] for s in LOOK_ALIKES))
    n = int(sum(row[f"lookalike_{s}_n"] for s in LOOK_ALIKES))
    low, high = clopper_pearson(k, n)
    tests.append(RuleTest(f"look-alike non-conflicts flagged ({m})", {"rate": k / n if n else None, "low": low,
                                                                       "high": high, "flagged": k, "look_alikes": n},
                          holds_if=f"high <= {la_bar}", fails_if=f"low > {la_bar}",
                          rule=f"exact 95% binomial interval: holds when its upper bound is <= {la_bar:g}, fails when "
                               f"its lower bound is above"))
    return tests


def executability_tests(f, th, m: str) -> list:
    main, ex = f["main"], f["executability"]
    part = ex[ex["method"] == m]
    named = float(part["not_executable_with_named_kernels"].min()) if len(part) else float("nan")
    decision = float(th.execute_decision)
    return [SeedTest(f"execute decision precision ({m})", _by_seed(main, m, "execute_precision"), ">", decision),
            SeedTest(f"execute decision recall ({m})", _by_seed(main, m, "execute_recall"), ">", decision),
            SeedTest(f"truly executable queries answered within tolerance of the SCM truth ({m})",
                     _by_seed(main, m, "correct_when_executable"), ">", float(th.query_correct)),
            RuleTest(f"non-executable queries naming their missing kernels ({m})", {"named_missing": named},
                     holds_if="named_missing >= 1", fails_if="named_missing < 1",
                     rule="the smallest share over the six query types is 1")]


def naive_bias_tests(f, th, m: str) -> list:
    main = f["main"]
    return [SeedTest("Spearman rho(p0, naive error)", _by_seed(main, "compiled", "naive_bias_rho"), ">",
                     float(th.bias_rho)),
            SeedTest(f"largest p0-bin error, naive - {m}",
                     paired(_by_seed(main, "naive", "bias_max"), _by_seed(main, m, "bias_max")), ">", 0.0)]


def cohort_tests(f, th, m: str) -> list:
    main = f["main"]
    return [SeedTest(f"answers within tolerance of the cohort estimate's 95% CI ({m})",
                     _by_seed(main, m, "cohort_agreement"), ">", float(th.cohort_agreement)),
            SeedTest(f"cohort error on binary outcomes, naive - {m}",
                     paired(_by_seed(main, "naive", "cohort_error_binary"), _by_seed(main, m, "cohort_error_binary")),
                     ">", 0.0),
            SeedTest(f"cohort error on temporal and heterogeneous queries, pooled - {m}",
                     paired(_by_seed(main, "pooled", "cohort_error_temporal_heterogeneous"),
                            _by_seed(main, m, "cohort_error_temporal_heterogeneous")), ">", 0.0)]


# claim id -> (its tests as a function of the compiler judged, the degenerate compilers that must fail them)
TESTS = {"canonicalisation": (canonicalisation_tests, ("naive", "flipped", "constant")),
         # a global sign flip keeps every pairwise gap, so it is a valid conflict detector: not a negative control
         "conflict_recall": (conflict_tests, ("naive", "constant", "nocell")),
         "executability": (executability_tests, ("naive", "flipped", "constant")),
         "naive_bias_grows": (naive_bias_tests, ("naive", "flipped", "constant")),
         "cohort_agreement": (cohort_tests, ("naive", "flipped", "constant"))}


def _canonicalisation(f, th) -> Claim:
    comp, bound = _row(f["main"], "compiled"), float(th.canonical_accuracy)
    tests, degenerate = TESTS["canonicalisation"]
    return Claim(
        "canonicalisation", "heterogeneous evidence is standardised into estimand objects with high canonicalisation "
        "accuracy (paper: 98.5%)",
        f"per-seed canonicalisation accuracy of the well-formed kernels (compiled): 95% t interval above {bound:g}; "
        f"and the compiler's canonical values of the held-out statements (surface forms written apart from the "
        f"extractor, config heldout): kernel-bootstrap 95% interval above {bound:g}. The rule-based extractor's "
        f"accuracy on those statements is reported (measured), not tested: it stands in for the paper's LLM extractor",
        tests(f, th, "compiled"), ["tables/main.csv"], {"value": 0.985, "where": ABSTRACT},
        controls=[Control("exact_conversions", "positive", "the same test on the kernels whose conversion is exact (RR, "
                          "SMD, MD, and OR/HR with the baseline risk reported): the test can pass",
                          SeedTest("canonicalisation accuracy, exact conversions",
                                   _by_seed(f["main"], "compiled", "exact_conversion_accuracy"), ">", bound)),
                  *_negative(tests, f, th, degenerate)],
        measured={"pooled_accuracy": comp["canonical_accuracy"], "kernels": comp["kernels"], "studies": comp["studies"],
                  **{f"heldout_extraction_{k}": v for k, v in _bootstrap(f, "heldout_extracted",
                                                                          int(f["resamples"])).items()},
                  "malformed_rejected": comp["malformed_rejected"],
                  **{f"{d}_accuracy": _row(f["main"], d)["canonical_accuracy"] for d in degenerate}})


def _conflicts(f, th) -> Claim:
    comp = _row(f["main"], "compiled")
    tests, degenerate = TESTS["conflict_recall"]
    return Claim(
        "conflict_recall", "conflict-aware graph construction detects every injected conflict (paper: 100% recall)",
        f"per stratum of injected conflicts (opposite sign with z 1.5-4, same sign, visible only after OR/HR "
        f"conversion at p0 0.25-0.40): exact 95% binomial interval of recall over all seeds, lower bound >= "
        f"{float(th.conflict_recall):g}; and look-alike non-conflicts (other population, other horizon, heterogeneity "
        f"below the bar) flagged: upper bound <= {float(th.look_alike_flag_rate):g}",
        tests(f, th, "compiled"), ["tables/main.csv", "tables/conflict_pr.csv", "figures/conflict_pr.png"],
        {"value": 1.0, "where": ABSTRACT},
        controls=_negative(tests, f, th, degenerate),
        measured={"recall": comp["conflict_recall"], "precision": comp["conflict_precision"],
                  "lookalike_flag_rate": comp["lookalike_flag_rate"],
                  **{f"{s}_n": comp[f"lookalike_{s}_n"] for s in LOOK_ALIKES},
                  **{f"{d}_recall": _row(f["main"], d)["conflict_recall"] for d in degenerate},
                  **{f"{d}_precision": _row(f["main"], d)["conflict_precision"] for d in degenerate}})


def _executability(f, th) -> Claim:
    comp = _row(f["main"], "compiled")
    cq = f["executability"][f["executability"]["method"] == "compiled"].set_index("type")
    tests, degenerate = TESTS["executability"]
    pooled = _row(f["main"], "pooled")
    return Claim(
        "executability", "the six query types execute when their kernels exist, answer correctly, and otherwise return "
        "'not executable' naming the missing kernels (paper: 80.5% executability)",
        f"per seed, against the ground truth (a query is truly executable when the cells it needs are in the corpus): "
        f"precision and recall of the execute decision, 95% t intervals above {float(th.execute_decision):g}; share "
        f"of truly executable queries answered within tolerance (0.05 + 0.25 |truth|) of the SCM truth above "
        f"{float(th.query_correct):g}; every non-executable query names its missing kernels",
        tests(f, th, "compiled"), ["tables/main.csv", "tables/executability.csv", "figures/executability_by_query.png"],
        {"value": 0.805, "where": ABSTRACT + " (reported beside ours, not a threshold)"},
        controls=_negative(tests, f, th, degenerate),
        measured={"executability": comp["executability"], "correct_when_executed": comp["correct_when_executed"],
                  "pooled_execute_precision": pooled["execute_precision"],
                  "pooled_correct_when_executable": pooled["correct_when_executable"],
                  **{f"executable_{t}": cq.loc[t, "executable"] for t in cq.index},
                  **{f"correct_{t}": cq.loc[t, "correct_when_executable"] for t in cq.index}})


def _naive_bias(f, th) -> Claim:
    bias = f["conversion_bias"]
    measured_bias = bias[bias["source"] == "measured"]
    rho = measured_bias["p0"].corr(measured_bias["naive_bias"], method="spearman") if len(measured_bias) > 2 \
        else float("nan")
    tests, degenerate = TESTS["naive_bias_grows"]
    return Claim(
        "naive_bias_grows", "taking OR (or HR) as RR is biased, and the bias grows with the baseline risk p0; the "
        "compiled conversion removes it",
        f"per seed, over the p0 bins of the binary OR/HR kernels: Spearman rho(p0, naive error) 95% t interval above "
        f"{float(th.bias_rho):g}, and the paired largest bin error naive - compiled 95% t interval above 0",
        tests(f, th, "compiled"), ["tables/main.csv", "tables/conversion_bias.csv", "figures/conversion_bias_vs_p0.png"],
        {"value": None, "where": "not in the abstract (the brief's criterion; the paper's conversion section)"},
        source="brief", controls=_negative(tests, f, th, degenerate),
        measured={"pooled_rho": rho, "pooled_naive_max_error": measured_bias["naive_bias"].max(),
                  "pooled_compiled_max_error": measured_bias["compiled_bias"].max()})


def _cohort(f, th) -> Claim:
    main = f["main"]
    comp = _row(main, "compiled")
    tests, degenerate = TESTS["cohort_agreement"]
    return Claim(
        "cohort_agreement", "compiled query answers agree with the real-world (here: simulated) cohort",
        f"per seed, on the executed do, temporal and heterogeneous queries: share whose answer lies within the query "
        f"tolerance of the backdoor-adjusted cohort estimate's 95% CI, t interval above {float(th.cohort_agreement):g}; "
        f"paired mean |answer - cohort| naive - compiled on binary outcomes and pooled - compiled on temporal and "
        f"heterogeneous queries, t intervals above 0",
        tests(f, th, "compiled"), ["tables/main.csv", "tables/cohort_validation.csv", "figures/cohort_validation.png"],
        {"value": None, "where": "abstract: validation on the Human Phenotype Project (10,000 participants); no "
                                 "agreement number is given there"},
        source="brief", controls=_negative(tests, f, th, degenerate),
        measured={"agreement": comp["cohort_agreement"], "queries": comp["cohort_queries"],
                  "do_sign_vs_cohort": comp["do_sign_vs_cohort"], "do_sign_vs_truth": comp["do_sign_vs_truth"],
                  **{f"{m}_agreement": _row(main, m)["cohort_agreement"] for m in ("naive", "pooled", "flipped",
                                                                                    "constant")}})


def _binomial(name: str, k, n, bar: float) -> RuleTest:
    """k of n against a bar: exact 95% interval, holds when its lower bound is >= bar, fails when its upper bound is
    below."""
    k, n = int(k), int(n)
    low, high = clopper_pearson(k, n)
    return RuleTest(name, {"rate": k / n if n else None, "low": low, "high": high, "k": k, "n": n},
                    holds_if=f"low >= {bar}", fails_if=f"high < {bar}",
                    rule=f"exact 95% binomial interval: holds when its lower bound is >= {bar:g}, fails when its upper "
                         f"bound is below")


def real_text_tests(r: dict, th, m: str, prefix: str = "heldout_") -> list:
    """The held-out real-text gold set (data/gold/causal_compile_heldout_protocol.md): recall and precision of the
    statements, and canonical accuracy of the matched ones under canonicaliser `m` (compiled, flipped, constant);
    `prefix` 'heldout_oracle_' scores the gold statements themselves (the positive control)."""
    bar, canon = float(th.gold_recall), float(th.canonical_accuracy)
    found = r[f"{prefix}found"]
    return [_binomial(f"held-out gold statements found ({prefix.strip('_')})", found, r[f"{prefix}gold_statements"],
                      bar),
            _binomial(f"extracted statements matching a gold statement ({prefix.strip('_')})", found,
                      r[f"{prefix}extracted"], bar),
            _binomial(f"canonical accuracy of the matched statements ({prefix.strip('_')}, {m})",
                      r[f"{prefix}canonical_correct_{m}"], found, canon)]


def _paper_scale(real: pd.DataFrame, th) -> Claim:
    r = dict(zip(real["metric"], real["value"]))
    bar, canon = float(th.gold_recall), float(th.canonical_accuracy)
    degenerate = {"flipped": "every canonical log ratio with the wrong sign",
                  "constant": "every canonical log ratio the mean of the extracted ones"}
    return Claim(
        "paper_scale", "DoAtlas-1 compiles 1,445 effect kernels from 754 studies and validates on the Human Phenotype "
        "Project (10,000 participants)",
        f"at scale=paper data=real: the 754-study corpus compiled by an LLM extractor and validation on the HPP cohort "
        f"(not wired); here and there, on the held-out gold set (abstracts drawn and labelled by a written protocol "
        f"before the extractor saw them): exact 95% binomial intervals of statement recall and precision with lower "
        f"bounds >= {bar:g}, and of the canonical accuracy of the matched statements >= {canon:g}",
        real_text_tests(r, th, "compiled"), ["tables/real_text.csv"],
        {"value": "1,445 kernels from 754 studies; HPP 10,000 participants",
         "where": "abstract: 'compiling 1,445 effect kernels from 754 studies ... (Human Phenotype Project, 10,000 "
                  "participants)'"},
        controls=[Control("oracle_extractor", "positive", "the gold statements given as the extraction, scored by the "
                          "same code: the tests can pass",
                          all_of("the tests on the oracle extraction",
                                 real_text_tests(r, th, "compiled", "heldout_oracle_"))),
                  *[Control(f"{d}_canonicaliser", "negative", f"the claim's tests with {text}; must not hold",
                            all_of(f"the tests with the {d} canonicaliser", real_text_tests(r, th, d)))
                    for d, text in degenerate.items()]],
        decided_at="paper", decided_data="real",
        why_not_tested="needs the paper's 754-study PubMed/PMC corpus with an LLM extractor and the HPP cohort (by "
                       "application only); offline, the rule-based extractor runs on the held-out gold abstracts (the "
                       "tests above show where it stands) and the cohort is simulated",
        measured={"real_abstracts": r["abstracts"], "real_statements": r["statements"],
                  "real_schema_valid": r["schema_valid"], "development_gold_recall": r["recall"],
                  "development_gold_precision": r["precision"],
                  **{f"heldout_recall_{k}": (r[f"heldout_found_{k}"] / r[f"heldout_gold_{k}"]
                                             if r[f"heldout_gold_{k}"] else None)
                     for k in ("ratio", "percent_pair", "relative_reduction")}})


def _auditable() -> Claim:
    return Claim(
        "auditable_reasoning", "causal compilation shifts medical AI from text generation to executable, auditable and "
        "verifiable causal reasoning", "not an experimental claim", [], ["tables/executability.csv"],
        {"value": None, "where": "abstract, last sentence"},
        why_not_tested="a statement of the paradigm's aim with no measurable quantity; its measurable parts are the "
                       "other claims (executable queries, conflict detection, canonicalisation)")


def build(main, bias, pr, execut, cohort_tab, real, kernels, cfg) -> tuple[list[Claim], dict]:
    """`pr` and `cohort_tab` are kept in the signature the claims stage calls; the per-seed values come from
    tables/main.csv; `kernels` (every seed's kernels.csv, or None) carries the held-out statements."""
    th = cfg.claims
    f = {"main": main, "conversion_bias": bias, "executability": execut, "kernels": kernels,
         "resamples": cfg.heldout.bootstrap}
    claims = [_canonicalisation(f, th), _conflicts(f, th), _executability(f, th), _naive_bias(f, th), _cohort(f, th),
              _paper_scale(real, th), _auditable()]
    return claims, {"exact_conversion_accuracy_pooled": _row(main, "compiled")["exact_conversion_accuracy"]}

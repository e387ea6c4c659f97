"""The abstract's claims as tests over per-seed statistics (claims contract v2; the design is in JOURNAL.md).

Each seed is an independent replication (its own generated benchmark, its own runs of every system and its own
judge-calibration set), so every statistic is computed per seed from that seed's run rows with the same table
functions the tables use, and the seeds give the t interval. Bounds are the ones the criteria used before v2 (fixed
before the first default run). Claims about the paper's MLLMs that the embedded stand-in reader cannot decide are
decided at `scale=paper data=real` (issue #58); their tests still run here on what the embedded run measures.
"""

from __future__ import annotations

import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, SeedTest, paired
from neurips26.papers.docscope import tables

CHAIN_BOUND = 0.5  # "few correct answers have complete chains": fewer than half (the criterion before v2)
KAPPA_BOUND = 0.8  # the brief's calibration gate: Cohen's kappa >= 0.8 for each judge
STAGES = ("page_f1", "fact_score", "answer_accuracy")  # the three stages region grounding is compared with
PAPER_REAL = "paper"


def _slug(name: str) -> str:
    """A control id from a system name (ids are lower-case letters, digits and underscores)."""
    return "".join(c if c.isalnum() else "_" for c in name.lower())


def _by_seed(runs: pd.DataFrame, statistic) -> pd.Series:
    return pd.Series({int(seed): statistic(group) for seed, group in runs.groupby("seed")})


def _stage(runs: pd.DataFrame, system: str, column: str) -> pd.Series:
    """Per seed: one column of table_main (the stage scores) for one system; NaN where the seed lacks the system."""

    def statistic(group: pd.DataFrame) -> float:
        main = tables.table_main(group).set_index("system")
        return float(main.loc[system, column]) if system in main.index else float("nan")

    return _by_seed(runs, statistic)


def _chain_test(runs: pd.DataFrame, system: str) -> SeedTest:
    return SeedTest(
        f"chain among correct (answerable), {system}",
        _stage(runs, system, "chain_among_correct_answerable"),
        "<",
        CHAIN_BOUND,
    )


def _chain_gap(runs: pd.DataFrame, system: str, text_system: str, control: str, oracle: str) -> Claim:
    return Claim(
        "chain_gap",
        "even among correct answers, the highest observed rate of complete evidence chains is only 29%; tested on "
        f"{system} (regions predicted from the page image by OCR) as: fewer than half of the correct answers to "
        f"answerable questions have a complete chain; {text_system} (boxes from the PDF text layer) is an oracle-box "
        "reference",
        f"per seed, the complete-chain rate among correct answers to answerable questions of {system}: 95% t interval "
        f"below {CHAIN_BOUND}; decided at scale=paper data=real (the paper's MLLMs)",
        [_chain_test(runs, system)],
        ["tables/main.csv", "figures/stage_funnel.png"],
        {"value": 0.29, "where": "abstract: 'the highest observed rate of complete evidence chains is only 29%' "
                                 "(best model; per-model rates in the paper's main results table)"},
        controls=[Control(f"{_slug(control)}_chains", "positive",
                          f"{control}: gold pages and facts with boxes jittered (answers right, boxes often not); "
                          "the same test must hold", _chain_test(runs, control)),
                  Control(f"{_slug(oracle)}_chains", "negative",
                          f"{oracle}: the gold facts cited on their gold boxes (every correct answer has a complete "
                          "chain); the same test must not hold", _chain_test(runs, oracle))],
        decided_at=PAPER_REAL, decided_data="real",
        per_seed={f"answer_accuracy, {system}": _stage(runs, system, "answer_accuracy"),
                  f"chain_rate, {system}": _stage(runs, system, "chain_rate"),
                  f"chain among correct (answerable), {text_system}":
                      _stage(runs, text_system, "chain_among_correct_answerable")},
    )  # fmt: skip


def _region_tests(runs: pd.DataFrame, system: str) -> list[SeedTest]:
    region = _stage(runs, system, "region_score")
    return [
        SeedTest(f"region_score - {stage}, {system}", paired(region, _stage(runs, system, stage)), "<", 0.0)
        for stage in STAGES
    ]


def _region_weakest(runs: pd.DataFrame, system: str, text_system: str, control: str, oracle: str) -> Claim:
    controls = [
        Control(
            f"{_slug(control)}_region_below_{stage}",
            "positive",
            f"{control}: gold pages, facts and answers with boxes jittered; the same comparison must hold",
            test,
        )
        for stage, test in zip(STAGES, _region_tests(runs, control))
    ]
    controls += [
        Control(
            f"{_slug(oracle)}_region_below_{stage}",
            "negative",
            f"{oracle}: the gold boxes cited (region score 1); the same comparison must not hold",
            test,
        )
        for stage, test in zip(STAGES, _region_tests(runs, oracle))
    ]
    return Claim(
        "region_weakest",
        f"region grounding is the weakest of the four stages (tested on {system}: regions predicted from pixels by "
        f"OCR; {text_system}, whose boxes are read from the PDF text layer, reported as an oracle-box reference)",
        f"per seed, region score minus each other stage score (page F1, fact score, answer accuracy) of {system}: "
        "each paired 95% t interval below 0 (three tests, all must hold); decided at scale=paper data=real",
        _region_tests(runs, system),
        ["tables/main.csv", "figures/stage_funnel.png"],
        {"value": None, "where": "abstract: 'region grounding remains the weakest trajectory stage' (per-stage scores "
                                 "of every model in the paper's main results table)"},
        controls=controls, decided_at=PAPER_REAL, decided_data="real",
        per_seed={f"region_score, {text_system}": _stage(runs, text_system, "region_score")},
    )  # fmt: skip


DISPERSION_TESTS = (
    ("answer_correct", "accuracy", "distance_bin"),
    ("answer_correct", "accuracy", "clusters"),
    ("chain_complete", "chain rate", "distance_bin"),
    ("chain_complete", "chain rate", "clusters"),
)


def _stratified_tests(runs: pd.DataFrame, system: str) -> list[SeedTest]:
    """Per seed, the within-stratum drop (tables.stratified_drop: k >= 2, same k, operation and other factor; lowest
    level minus highest) of accuracy and chain rate along distance and along clusters: each must exceed 0."""
    tests = []
    for column, label, factor in DISPERSION_TESTS:

        def drop(group, factor=factor, column=column):
            return tables.stratified_drop(group, system, factor, column)

        tests.append(SeedTest(f"{label} drop along {factor} within k and op, {system}", _by_seed(runs, drop), ">", 0.0))
    return tests


def _dispersion(runs: pd.DataFrame, system: str, oracle: str) -> Claim:
    negatives = [Control(f"{_slug(oracle)}_{_slug(t.name.split(',')[0])}", "negative",
                         f"{oracle}: the gold facts are given, so dispersion cannot hurt; the same test must not hold",
                         t) for t in _stratified_tests(runs, oracle)[:2]]  # fmt: skip
    return Claim(
        "dispersion",
        "accuracy and chain completeness fall as evidence is dispersed over longer distances and more clusters",
        f"per seed on {system} (answerable questions with k >= 2 evidence items): within each stratum of (k, "
        "operation, the other dispersion factor) the rate at the nearest minus the farthest distance bin, and at the "
        "fewest minus the most clusters, weighted over strata; accuracy and complete-chain rate: each 95% t interval "
        "above 0 (four tests, all must hold); every (clusters, distance bin, operation) cell of each k is generated. "
        "Decided at scale=paper data=real: the embedded reader takes BM25's top pages whatever their place in the "
        "document, so page distance cannot act on it and its distance tests could only fail; its numbers are shown "
        "as the outcome, never as the verdict",
        _stratified_tests(runs, system),
        ["tables/dispersion.csv", "figures/dispersion.png"],
        {"value": None, "where": "abstract; the paper's analysis of accuracy by evidence distance and cluster count"},
        controls=negatives, decided_at="paper", decided_data="real",
    )  # fmt: skip


def _gain(system: str, variant: str, column: str = "marginal_gain"):
    def statistic(group: pd.DataFrame) -> float:
        return float(tables.table_oracle(group, system).set_index("variant").loc[variant, column])

    return statistic


def _oracle_embedded(runs: pd.DataFrame, system: str) -> Claim:
    facts = _by_seed(runs, _gain(system, "oracle_facts"))
    others = {v: _by_seed(runs, _gain(system, v)) for v in ("oracle_regions", "oracle_pages")}
    return Claim(
        "oracle_facts_embedded",
        "sanity (embedded stand-in reader): of the oracle steps (pages, then regions, then facts), giving the facts "
        "brings the largest accuracy gain; holds by construction (the reader's arithmetic is exact code and it "
        "misreads tables and charts), so it is never counted for the paper's claim",
        f"per seed on {system}: marginal accuracy gain of oracle facts minus that of oracle regions, and minus that of "
        "oracle pages: each paired 95% t interval above 0 (two tests)",
        [SeedTest(f"gain_facts - gain_{v.removeprefix('oracle_')}", paired(facts, g), ">", 0.0)
         for v, g in others.items()],
        ["tables/oracle.csv", "figures/oracle.png"],
        {"value": None, "where": "abstract; the paper's oracle study table (gold pages, regions, facts)"},
        kind="sanity",
        per_seed={"gain_facts": facts, **{f"gain_{v.removeprefix('oracle_')}": g for v, g in others.items()}},
    )  # fmt: skip


def _kappa_embedded(calibration: pd.DataFrame) -> Claim:
    def kappa(judge):
        return lambda group: float(tables.table_judge_kappa(group).set_index("judge").loc[judge, "kappa"])

    def test(judge):
        return SeedTest(f"{judge} judge kappa", _by_seed(calibration, kappa(judge)), ">", KAPPA_BOUND)

    return Claim(
        "judge_kappa_embedded",
        "sanity: the offline judges agree with the constructed labels (Cohen's kappa > 0.8); the labels are made by "
        "rules close to the judges' own (area vs ink coverage; the facts' division, metric, year and value), so this "
        "checks the judges' code, never the paper's human-aligned judges",
        f"per seed, Cohen's kappa of the region, fact and answer judges against the labelled set: each 95% t interval "
        f"above {KAPPA_BOUND} (three tests); negative control: the numbers-only fact judge on the same set (same-number "
        "wrong-division / wrong-metric and wrong-page cases) must not pass",
        [test(judge) for judge in ("region", "fact", "answer")],
        ["tables/judge_kappa.csv"],
        {"value": None, "where": "abstract: 'all judges selected and calibrated via human alignment studies'"},
        kind="sanity",
        controls=[Control("fact_numbers_only_judge", "negative", "the fact judge reduced to number matching (the "
                          "judge before issue #58) on the same labelled cases; the same test must not hold",
                          test("fact_numbers_only"))],
    )  # fmt: skip


def _not_tested(claim_id: str, statement: str, where: dict, why: str) -> Claim:
    return Claim(
        claim_id,
        statement,
        "no test: " + why,
        [],
        ["tables/main.csv"],
        where,
        decided_at=PAPER_REAL,
        decided_data="real",
        why_not_tested=why,
    )


def build(runs: pd.DataFrame, calibration: pd.DataFrame, system: str, region_system: str) -> list[Claim]:
    """`runs`: every seed's run rows (runs/seed*.csv); `calibration`: every seed's judge-calibration rows.
    `system`: the main text-layer system (dispersion, oracle study); `region_system`: the system whose regions are
    predicted from pixels, on which the two region claims are judged (fixed in config before the final run)."""
    oracle = "oracle_facts"
    return [
        _chain_gap(runs, region_system, system, "noisy_boxes_0.04", oracle),
        _region_weakest(runs, region_system, system, "noisy_boxes_0.02", oracle),
        _dispersion(runs, system, oracle),
        _not_tested(
            "oracle_facts_largest",
            "faithful perception and fact extraction are the dominant bottleneck (oracle study)",
            {"value": None, "where": "abstract; the paper's oracle study table (gold pages, regions, facts)"},
            "decided at scale=paper data=real by the VLM given gold pages, then gold region crops, then gold facts; "
            "the embedded reader's oracle gains follow from its construction (exact arithmetic, misread tables and "
            "charts) and are the sanity row oracle_facts_embedded",
        ),
        _not_tested(
            "judge_kappa",
            "all judges are selected and calibrated via human alignment studies",
            {
                "value": None,
                "where": "abstract: 'all judges selected and calibrated via human alignment studies' (the "
                "paper's judge-alignment study)",
            },
            "decided at scale=paper data=real: agreement of the offline judges with the official LLM judges "
            "(score_bbox / score_facts / score_answer prompts) on real MLLM trajectories; the embedded kappa is on "
            "labels close to the judges' own rules and is the sanity row judge_kappa_embedded",
        ),
        _not_tested(
            "mllm_numbers",
            "DocScope comprises 1,124 questions derived from 273 documents",
            {"value": "1,124 questions, 273 documents", "where": "abstract"},
            "needs the DocScope release (Hugging Face MiliLab/DocScope), which data=real does not fetch yet (the "
            "stages refuse data=real; issue #58 item 7); the embedded benchmark is generated",
        ),
        _not_tested(
            "activated_params",
            "activated parameter count matters more than total scale",
            {"value": None, "where": "abstract; the paper's cross-architecture comparison (dense vs MoE models)"},
            "decided at scale=paper data=real by one model family in dense and mixture-of-experts form on the "
            "release with the official prompt (e.g. Qwen3-VL 4B and 32B dense vs 30B-A3B; issue #58 item 6), a run "
            "not built yet; no embedded system has activated and total parameters",
        ),
        _oracle_embedded(runs, system),
        _kappa_embedded(calibration),
    ]

"""Pilot for issue 56 (seeds outside every configured set, e.g. 900-902): run the seeds in memory, build the tables
and the claims, print each claim's tests and controls. Usage: python -m
neurips26.papers.causal_compile.pilots.issue56_pilot 900 901 902 [override ...]"""

from __future__ import annotations

import sys

import pandas as pd

from neurips26.common.pipeline.config import compose
from neurips26.papers.causal_compile import experiments, paper_claims, real_gold, tables


def main(argv: list[str]) -> None:
    seeds = [int(a) for a in argv if a.isdigit()]
    cfg = compose("causal_compile", [a for a in argv if not a.isdigit()])
    runs = [experiments.run(cfg, s) for s in seeds]
    k, q, c = (pd.concat([r[n] for r in runs], ignore_index=True) for n in ("kernels", "queries", "conflicts"))
    k["malformed"] = k["malformed"].fillna("")
    main_t = tables.table_main(k, q, c)
    bias = tables.table_conversion_bias(k, list(cfg.evaluation.p0_grid), list(cfg.evaluation.rr_grid))
    # the real-text table as the scoring code writes it for no abstracts (the pilot runs the embedded seeds only)
    empty = pd.DataFrame(columns=["pmid", "kind", "scale", "estimate", "ci_low", "ci_high", "arm_a", "arm_b"])
    dev = {"abstracts": 0, "statements": 0, "schema_valid": 0, "recall": float("nan"), "precision": float("nan")}
    real = real_gold.summary_table(dev, real_gold.score([], empty)[1])
    claims, _ = paper_claims.build(main_t, bias, None, tables.table_executability(q), None, real, k, cfg)
    cols = [
        "method",
        "canonical_accuracy",
        "conflict_recall",
        "lookalike_flag_rate",
        "conflict_precision",
        "execute_precision",
        "execute_recall",
        "correct_when_executable",
        "cohort_agreement",
        "cohort_error_binary",
        "cohort_error_temporal_heterogeneous",
        "bias_max",
    ]
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(main_t[main_t["seed"].astype(str) == "all"][cols].round(3).to_string(index=False))
    for claim in claims:
        print(f"\n== {claim.id}")
        for t in claim.tests:
            print(
                "  test",
                t.name,
                t.outcome()[0],
                t.statistic().get("estimate"),
                t.statistic().get("ci_low"),
                t.statistic().get("ci_high"),
                getattr(t, "measured", ""),
            )
        for ctl in claim.controls:
            print(
                "  control",
                ctl.id,
                ctl.kind,
                "passed" if ctl.passed() else "NOT passed",
                ctl.test.measured if isinstance(ctl.test, paper_claims.RuleTest) else "",
            )


if __name__ == "__main__":
    main(sys.argv[1:])

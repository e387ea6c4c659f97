# docatlas: a mutable document harness for long-document agents (seed abstract 16). One job per seed trains the tool
# policy and evaluates every agent at every budget; tables aggregate over seeds; figures come from tables only; the
# claims are tested per seed on each seed's episodes.

DOCATLAS_TABLES = {"mmlb_style": "episodes", "ablation": "episodes", "rl_curve": "rl_curve"}
DOCATLAS_FIGURES = {"acc_vs_budget": "mmlb_style", "ablation": "ablation", "rl_curve": "rl_curve"}
# modules that only present results: editing them re-runs tables/figures/claims, never the runs
DOCATLAS_PRESENTATION = ["tables", "figures", "paper_claims", "bootstrap", "stages"]

EXTRA_OUTPUTS["docatlas"] = expand(
    "results/docatlas/runs/seed{seed}/{name}", seed=SEEDS, name=["episodes.csv", "rl_curve.csv", "trajectories.jsonl.gz"]
)


rule docatlas_run:
    input:
        config="results/docatlas/config.yaml",
        reports="data/raw/docatlas_reports/provenance.json",
        manuals="data/raw/r_doc_pdf/provenance.json",
        code=code_files("docatlas", exclude=DOCATLAS_PRESENTATION),
    output:
        episodes="results/docatlas/runs/seed{seed}/episodes.csv",
        curve="results/docatlas/runs/seed{seed}/rl_curve.csv",
        trajectories="results/docatlas/runs/seed{seed}/trajectories.jsonl.gz",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/docatlas/run_seed{seed}.log",
    benchmark:
        "logs/docatlas/benchmarks/run_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 docatlas run --config {input.config} --seed {wildcards.seed}"
        " --input {input.reports} {input.manuals} --output {output} --threads {threads} > {log} 2>&1"


# Tables, figures and claims take seconds each, mostly start-up: one job runs them in order in one process (each step
# still reads only saved files: a table its runs, a figure its table, the claims the tables).
rule docatlas_summary:
    group:
        "docatlas_summary"
    input:
        registry="config/claims/docatlas.yaml",  # the claims of the abstract the claims stage checks against
        config="results/docatlas/config.yaml",
        runs=expand("results/docatlas/runs/seed{seed}/{kind}.csv", kind=["episodes", "rl_curve"], seed=SEEDS),
        code=code_files("docatlas", *DOCATLAS_PRESENTATION),
    output:
        tables=expand("results/docatlas/tables/{table}.csv", table=DOCATLAS_TABLES),
        figures=report(
            expand("results/docatlas/figures/{figure}.png", figure=DOCATLAS_FIGURES),
            caption="../report/paper_figure.rst",
            category="docatlas",
            subcategory="figures",
        ),
        claims="results/docatlas/claims.json",
        metrics="results/docatlas/metrics.json",
    params:
        steps=stage_steps(
            "docatlas",
            [
                *table_steps(
                    "docatlas",
                    {
                        table: expand("results/docatlas/runs/seed{seed}/{kind}.csv", kind=kind, seed=SEEDS)
                        for table, kind in DOCATLAS_TABLES.items()
                    },
                ),
                *figure_steps("docatlas", DOCATLAS_FIGURES),
                # the claims are tested per seed: they read each seed's episodes (claims v2) and the RL curve table
                claims_step(
                    "docatlas",
                    expand("results/docatlas/runs/seed{seed}/episodes.csv", seed=SEEDS)
                    + ["results/docatlas/tables/rl_curve.csv"],
                ),
            ],
        ),
    log:
        "logs/docatlas/summary.log",
    benchmark:
        "logs/docatlas/benchmarks/summary.tsv"
    resources:
        mem_mb=1000,
        runtime=15,
    shell:
        "python -m neurips26 docatlas {params.steps} > {log} 2>&1"

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


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
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
    code=code_files("docatlas", *DOCATLAS_PRESENTATION),
)

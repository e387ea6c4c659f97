# mec_mmd: measurement-error-corrected MMD (seed abstract 2). Four experiments x seeds fan out as one job each; tables
# aggregate over seeds; figures are drawn from tables only; claims are computed from tables.

MEC_MMD_EXPERIMENTS = ["bias", "rate", "estimation", "testing"]
# table -> the experiment whose per-seed runs it aggregates
MEC_MMD_TABLES = {"main": "bias", "rate": "rate", "estimation": "estimation", "test_size": "testing"}
# figure -> the table it is drawn from
MEC_MMD_FIGURES = {
    "bias_vs_noise": "main",
    "rmse_vs_audit_size": "main",
    "rate_loglog": "rate",
    "param_estimation": "estimation",
    "test_power": "test_size",
}

# modules that only present results: editing them re-runs tables/figures/claims, never the experiments
MEC_MMD_PRESENTATION = ["tables", "figures", "paper_claims"]

EXTRA_OUTPUTS["mec_mmd"] = expand(
    "results/mec_mmd/runs/{experiment}/seed{seed}.csv", experiment=MEC_MMD_EXPERIMENTS, seed=SEEDS
)


rule mec_mmd_config:
    localrule: True
    input:
        hydra_files("mec_mmd"),
    output:
        "results/mec_mmd/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/mec_mmd/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 mec_mmd config --output {output} {params.overrides} > {log} 2>&1"


rule mec_mmd_run:
    input:
        config="results/mec_mmd/config.yaml",
        data="data/raw/mec_mmd_mixture/provenance.json",
        code=code_files("mec_mmd", exclude=MEC_MMD_PRESENTATION),
    output:
        "results/mec_mmd/runs/{experiment}/seed{seed}.csv",
    wildcard_constraints:
        experiment="|".join(MEC_MMD_EXPERIMENTS),
        seed=r"\d+",
    log:
        "logs/mec_mmd/run_{experiment}_seed{seed}.log",
    benchmark:
        "logs/mec_mmd/benchmarks/run_{experiment}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 mec_mmd run_{wildcards.experiment} --config {input.config} --seed {wildcards.seed}"
        " --output {output} --threads {threads} > {log} 2>&1"


rule mec_mmd_table:
    group:
        "mec_mmd_summary"
    input:
        config="results/mec_mmd/config.yaml",
        runs=lambda w: expand(
            "results/mec_mmd/runs/{experiment}/seed{seed}.csv", experiment=MEC_MMD_TABLES[w.table], seed=SEEDS
        ),
        code=code_files("mec_mmd", "tables"),
    output:
        "results/mec_mmd/tables/{table}.csv",
    wildcard_constraints:
        table="|".join(MEC_MMD_TABLES),
    log:
        "logs/mec_mmd/table_{table}.log",
    benchmark:
        "logs/mec_mmd/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mec_mmd table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule mec_mmd_figure:
    group:
        "mec_mmd_summary"
    input:
        config="results/mec_mmd/config.yaml",
        table=lambda w: f"results/mec_mmd/tables/{MEC_MMD_FIGURES[w.figure]}.csv",
        code=code_files("mec_mmd", "figures"),
    output:
        report(
            "results/mec_mmd/figures/{figure}.png",
            caption="../report/mec_mmd_figure.rst",
            category="mec_mmd",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(MEC_MMD_FIGURES),
    log:
        "logs/mec_mmd/figure_{figure}.log",
    benchmark:
        "logs/mec_mmd/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mec_mmd figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule mec_mmd_claims:
    group:
        "mec_mmd_summary"
    input:
        config="results/mec_mmd/config.yaml",
        tables=expand("results/mec_mmd/tables/{table}.csv", table=MEC_MMD_TABLES),
        figures=expand("results/mec_mmd/figures/{figure}.png", figure=MEC_MMD_FIGURES),
        code=code_files("mec_mmd", "paper_claims"),
    output:
        claims="results/mec_mmd/claims.json",
        metrics="results/mec_mmd/metrics.json",
    log:
        "logs/mec_mmd/claims.log",
    benchmark:
        "logs/mec_mmd/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mec_mmd claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

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


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "mec_mmd",
    [
        *table_steps(
            "mec_mmd",
            {
                table: expand("results/mec_mmd/runs/{experiment}/seed{seed}.csv", experiment=experiment, seed=SEEDS)
                for table, experiment in MEC_MMD_TABLES.items()
            },
        ),
        *figure_steps("mec_mmd", MEC_MMD_FIGURES),
        claims_step("mec_mmd", ["results/mec_mmd/tables/main.csv", *EXTRA_OUTPUTS["mec_mmd"]]),
    ],
    code=code_files("mec_mmd", *MEC_MMD_PRESENTATION),
    runtime=10,
)

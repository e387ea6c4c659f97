# mixup_minority: minority collapse under Mixup; BMLS + Mixed-Singleton classifier (seed abstract 10). One layer-peeled
# job per seed (every sampler x ratio, seconds each); one long-tailed training job per dataset x ratio x seed, training
# every method on the same long-tailed set (a torch start costs seconds, each run a few). The mixed-label histogram is
# closed form + draws. Tables are concatenated / aggregated from the runs; figures and claims are drawn from tables.
MM_SETTINGS = scale_settings("mixup_minority")
MM_DATASETS = list(MM_SETTINGS.lt.datasets[config["data"]])
MM_RATIOS = [str(float(r)) for r in MM_SETTINGS.lt.ratios]
MM_LT_RUNS = expand("results/mixup_minority/runs/lt/{dataset}/ratio{ratio}/seed{seed}.csv", dataset=MM_DATASETS,
                    ratio=MM_RATIOS, seed=SEEDS)
MM_LPM_RUNS = expand("results/mixup_minority/runs/lpm/seed{seed}.csv", seed=SEEDS)
MM_LPM_GRAMS = expand("results/mixup_minority/runs/lpm/gram_seed{seed}.csv", seed=SEEDS)
MM_FIGURES = {"minority_collapse_vs_ratio": "lpm", "mixed_label_hist": "mixed_label_hist",
              "feature_geometry": "geometry"}  # figure -> its table

EXTRA_OUTPUTS["mixup_minority"] = MM_LT_RUNS + MM_LPM_RUNS + MM_LPM_GRAMS + [
    "results/mixup_minority/tables/lt_runs.csv", "results/mixup_minority/tables/lpm_runs.csv"]


rule mixup_minority_lpm:
    input:
        config="results/mixup_minority/config.yaml",
        code=code_files("mixup_minority", "lpm", "method", "samplers", "experiments"),
    output:
        runs="results/mixup_minority/runs/lpm/seed{seed}.csv",
        grams="results/mixup_minority/runs/lpm/gram_seed{seed}.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/mixup_minority/lpm_seed{seed}.log",
    benchmark:
        "logs/mixup_minority/benchmarks/lpm_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=20,
    shell:
        "python -m neurips26 mixup_minority run_lpm --config {input.config} --seed {wildcards.seed}"
        " --output {output.runs} {output.grams} --threads {threads} > {log} 2>&1"


rule mixup_minority_lt:
    input:
        data="data/raw/{dataset}/provenance.json",
        config="results/mixup_minority/config.yaml",
        code=code_files("mixup_minority", exclude=("tables", "figures", "paper_claims", "stages", "lpm")),
    output:
        "results/mixup_minority/runs/lt/{dataset}/ratio{ratio}/seed{seed}.csv",
    wildcard_constraints:
        dataset="|".join(MM_DATASETS),
        ratio=r"[0-9.]+",
        seed=r"\d+",
    log:
        "logs/mixup_minority/lt_{dataset}_ratio{ratio}_seed{seed}.log",
    benchmark:
        "logs/mixup_minority/benchmarks/lt_{dataset}_ratio{ratio}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    shell:
        "python -m neurips26 mixup_minority run_lt --config {input.config} --input {input.data}"
        " --seed {wildcards.seed} --output {output} --threads {threads}"
        " run.dataset={wildcards.dataset} run.ratio={wildcards.ratio} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "mixup_minority",
    [
        *table_steps(
            "mixup_minority",
            {
                "lt_runs": MM_LT_RUNS,
                "lpm_runs": MM_LPM_RUNS,
                "main": ["results/mixup_minority/tables/lt_runs.csv"],
                "lpm": ["results/mixup_minority/tables/lpm_runs.csv"],
                "geometry": MM_LPM_GRAMS,
                "ablation": ["results/mixup_minority/tables/lt_runs.csv", "results/mixup_minority/tables/lpm_runs.csv"],
            },
        ),
        # the mixed-label histogram is closed form + draws (seconds): computed here rather than as a run
        ("run_hist", [], ["results/mixup_minority/tables/mixed_label_hist.csv"]),
        *figure_steps("mixup_minority", MM_FIGURES),
        claims_step("mixup_minority", ["results/mixup_minority/tables/lpm_runs.csv", "results/mixup_minority/tables/lt_runs.csv"]),
    ],
    code=code_files("mixup_minority", "tables", "figures", "paper_claims", "samplers", "experiments", "data"),
)

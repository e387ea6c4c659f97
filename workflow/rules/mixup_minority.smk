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


rule mixup_minority_config:
    localrule: True
    input:
        hydra_files("mixup_minority"),
    output:
        "results/mixup_minority/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/mixup_minority/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 mixup_minority config --output {output} {params.overrides} > {log} 2>&1"


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


rule mixup_minority_table_runs:
    group:
        "mixup_minority_summary"
    input:
        config="results/mixup_minority/config.yaml",
        runs=lambda w: MM_LT_RUNS if w.kind == "lt" else MM_LPM_RUNS,
        code=code_files("mixup_minority", "tables"),
    output:
        "results/mixup_minority/tables/{kind}_runs.csv",
    wildcard_constraints:
        kind="lt|lpm",
    log:
        "logs/mixup_minority/table_{kind}_runs.log",
    benchmark:
        "logs/mixup_minority/benchmarks/table_{kind}_runs.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mixup_minority table_{wildcards.kind}_runs --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule mixup_minority_table:
    group:
        "mixup_minority_summary"
    input:
        config="results/mixup_minority/config.yaml",
        runs=lambda w: {"main": ["results/mixup_minority/tables/lt_runs.csv"],
                        "lpm": ["results/mixup_minority/tables/lpm_runs.csv"],
                        "geometry": MM_LPM_GRAMS,
                        "ablation": ["results/mixup_minority/tables/lt_runs.csv",
                                     "results/mixup_minority/tables/lpm_runs.csv"]}[w.table],
        code=code_files("mixup_minority", "tables"),
    output:
        "results/mixup_minority/tables/{table}.csv",
    wildcard_constraints:
        table="main|lpm|geometry|ablation",
    log:
        "logs/mixup_minority/table_{table}.log",
    benchmark:
        "logs/mixup_minority/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mixup_minority table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule mixup_minority_hist:
    group:
        "mixup_minority_summary"
    input:
        config="results/mixup_minority/config.yaml",
        code=code_files("mixup_minority", "samplers", "experiments", "data"),
    output:
        "results/mixup_minority/tables/mixed_label_hist.csv",
    log:
        "logs/mixup_minority/hist.log",
    benchmark:
        "logs/mixup_minority/benchmarks/hist.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mixup_minority run_hist --config {input.config} --output {output} > {log} 2>&1"


rule mixup_minority_figure:
    group:
        "mixup_minority_summary"
    input:
        config="results/mixup_minority/config.yaml",
        table=lambda w: f"results/mixup_minority/tables/{MM_FIGURES[w.figure]}.csv",
        code=code_files("mixup_minority", "figures"),
    output:
        report(
            "results/mixup_minority/figures/{figure}.png",
            caption="../report/mixup_minority_figure.rst",
            category="mixup_minority",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(MM_FIGURES),
    log:
        "logs/mixup_minority/figure_{figure}.log",
    benchmark:
        "logs/mixup_minority/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mixup_minority figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule mixup_minority_claims:
    group:
        "mixup_minority_summary"
    input:
        config="results/mixup_minority/config.yaml",
        tables=["results/mixup_minority/tables/lpm.csv", "results/mixup_minority/tables/lt_runs.csv"],
        others=expand("results/mixup_minority/tables/{table}.csv", table=["main", "ablation"]),
        figures=expand("results/mixup_minority/figures/{figure}.png", figure=MM_FIGURES),
        code=code_files("mixup_minority", "paper_claims"),
    output:
        claims="results/mixup_minority/claims.json",
        metrics="results/mixup_minority/metrics.json",
    log:
        "logs/mixup_minority/claims.log",
    benchmark:
        "logs/mixup_minority/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mixup_minority claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

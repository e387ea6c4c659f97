# hyperidac: domain-conditioned class imbalance (seed abstract 5). One job caches the frozen extractor's features of
# every candidate and test image (Fashion-MNIST rendered into 4 domains); every regime x seed job then reads features,
# not images, and trains all methods on its DCI allocation (one job per method would spend more time starting Python
# and torch than training a head on 4,000 feature rows). Tables, figures and claims are drawn from the run tables.
HYP_SETTINGS = scale_settings("hyperidac")
HYP_REGIMES = list(HYP_SETTINGS.regimes)
HYP_RUNS = expand("results/hyperidac/runs/{regime}/seed{seed}.csv", regime=HYP_REGIMES, seed=SEEDS)
HYP_TABLES = ["main", "ablation", "cells"]
# figure -> the table it is drawn from
HYP_FIGURES = {"acc_vs_dci": "main", "cell_accuracy_heatmap": "cells"}

EXTRA_OUTPUTS["hyperidac"] = HYP_RUNS + ["results/hyperidac/features.npz"]


rule hyperidac_config:
    localrule: True
    input:
        hydra_files("hyperidac"),
    output:
        "results/hyperidac/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/hyperidac/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 hyperidac config --output {output} {params.overrides} > {log} 2>&1"


rule hyperidac_features:
    input:
        data="data/raw/fashion_mnist/provenance.json",
        config="results/hyperidac/config.yaml",
        code=code_files("hyperidac", "data"),
    output:
        "results/hyperidac/features.npz",
    log:
        "logs/hyperidac/features.log",
    benchmark:
        "logs/hyperidac/benchmarks/features.tsv"
    threads: 2
    resources:
        mem_mb=3000,
        runtime=20,
    shell:
        "python -m neurips26 hyperidac features --config {input.config} --input {input.data} --output {output}"
        " --threads {threads} > {log} 2>&1"


rule hyperidac_run:
    input:
        features="results/hyperidac/features.npz",
        config="results/hyperidac/config.yaml",
        code=code_files("hyperidac", "method", "training", "baselines", "allocation", "experiments", "data"),
    output:
        "results/hyperidac/runs/{regime}/seed{seed}.csv",
    wildcard_constraints:
        regime="|".join(HYP_REGIMES),
        seed=r"\d+",
    log:
        "logs/hyperidac/run_{regime}_seed{seed}.log",
    benchmark:
        "logs/hyperidac/benchmarks/run_{regime}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 hyperidac run --config {input.config} --input {input.features} --seed {wildcards.seed}"
        " --output {output} --threads {threads} run.regime={wildcards.regime} > {log} 2>&1"


rule hyperidac_table_allocation:
    group:
        "hyperidac_summary"
    input:
        config="results/hyperidac/config.yaml",
        code=code_files("hyperidac", "tables", "allocation"),
    output:
        "results/hyperidac/tables/allocation.csv",
    log:
        "logs/hyperidac/table_allocation.log",
    benchmark:
        "logs/hyperidac/benchmarks/table_allocation.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 hyperidac table_allocation --config {input.config} --output {output} > {log} 2>&1"


rule hyperidac_table:
    group:
        "hyperidac_summary"
    input:
        config="results/hyperidac/config.yaml",
        runs=HYP_RUNS,
        code=code_files("hyperidac", "tables", "allocation"),
    output:
        "results/hyperidac/tables/{table}.csv",
    wildcard_constraints:
        table="|".join(HYP_TABLES),
    log:
        "logs/hyperidac/table_{table}.log",
    benchmark:
        "logs/hyperidac/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 hyperidac table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule hyperidac_figure:
    group:
        "hyperidac_summary"
    input:
        config="results/hyperidac/config.yaml",
        table=lambda w: f"results/hyperidac/tables/{HYP_FIGURES[w.figure]}.csv",
        code=code_files("hyperidac", "figures"),
    output:
        report(
            "results/hyperidac/figures/{figure}.png",
            caption="../report/hyperidac_figure.rst",
            category="hyperidac",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(HYP_FIGURES),
    log:
        "logs/hyperidac/figure_{figure}.log",
    benchmark:
        "logs/hyperidac/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 hyperidac figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule hyperidac_claims:
    group:
        "hyperidac_summary"
    input:
        config="results/hyperidac/config.yaml",
        tables=expand("results/hyperidac/tables/{table}.csv", table=["allocation", "main", "ablation"]),
        figures=expand("results/hyperidac/figures/{figure}.png", figure=HYP_FIGURES),
        code=code_files("hyperidac", "paper_claims"),
    output:
        claims="results/hyperidac/claims.json",
        metrics="results/hyperidac/metrics.json",
    log:
        "logs/hyperidac/claims.log",
    benchmark:
        "logs/hyperidac/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 hyperidac claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

# rldp: RLDP difficulty directions + AdaSwitch routing (seed abstract 6).
# The small arithmetic decoder is trained once (cached artifact); one evaluation job per seed reads it; SmolLM2 runs
# once on MMLU mathematics (every seed draws its references inside); tables aggregate, figures read tables.
RLDP_FIGURES = ["score_vs_difficulty", "layerwise_auroc", "accuracy_cost_frontier"]
RLDP_RUNS = {part: expand("results/rldp/runs/seed{seed}_{part}.csv", seed=SEEDS, part=part)
             for part in ("rows", "layers", "timing")}
RLDP_LLM = ["results/rldp/runs/llm_runs.csv", "results/rldp/runs/llm_layers.csv"]
RLDP_TABLES = {
    "main": RLDP_RUNS["rows"],
    "frontier": RLDP_RUNS["rows"],
    "difficulty": RLDP_RUNS["rows"],
    "timing": RLDP_RUNS["timing"],
    "llm": RLDP_LLM[:1],
    "layers": RLDP_RUNS["layers"] + RLDP_LLM[1:],
}
RLDP_FIGURE_TABLE = {"score_vs_difficulty": "difficulty", "layerwise_auroc": "layers", "accuracy_cost_frontier": "frontier"}

EXTRA_OUTPUTS["rldp"] = ["results/rldp/model/decoder.pt", "results/rldp/model/history.csv",
                         *[f"results/rldp/tables/{t}.csv" for t in RLDP_TABLES]]


rule rldp_config:
    localrule: True
    input:
        hydra_files("rldp"),
    output:
        "results/rldp/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/rldp/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 rldp config --output {output} {params.overrides} > {log} 2>&1"


rule rldp_train:
    input:
        config="results/rldp/config.yaml",
        code=code_files("rldp", "data", "model", "experiments"),
    output:
        model="results/rldp/model/decoder.pt",
        history="results/rldp/model/history.csv",
    log:
        "logs/rldp/train.log",
    benchmark:
        "logs/rldp/benchmarks/train.tsv"
    threads: 2
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 rldp train --config {input.config} --output {output.model} {output.history}"
        " --threads {threads} > {log} 2>&1"


rule rldp_run:
    input:
        model="results/rldp/model/decoder.pt",
        config="results/rldp/config.yaml",
        code=code_files("rldp", "data", "model", "method", "baselines", "experiments"),
    output:
        rows="results/rldp/runs/seed{seed}_rows.csv",
        layers="results/rldp/runs/seed{seed}_layers.csv",
        timing="results/rldp/runs/seed{seed}_timing.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/rldp/run_seed{seed}.log",
    benchmark:
        "logs/rldp/benchmarks/run_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "python -m neurips26 rldp run --config {input.config} --input {input.model} --seed {wildcards.seed}"
        " --output {output.rows} {output.layers} {output.timing} --threads {threads} > {log} 2>&1"


rule rldp_llm:
    input:
        data="data/raw/ensemble_mi_mmlu/provenance.json",
        config="results/rldp/config.yaml",
        code=code_files("rldp", "method", "baselines", "experiments"),
    output:
        runs=RLDP_LLM[0],
        layers=RLDP_LLM[1],
    log:
        "logs/rldp/llm.log",
    benchmark:
        "logs/rldp/benchmarks/llm.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m neurips26 rldp run_llm --config {input.config} --input {input.data}"
        " --output {output.runs} {output.layers} --threads {threads} > {log} 2>&1"


rule rldp_table:
    group:
        "rldp_summary"
    input:
        config="results/rldp/config.yaml",
        runs=lambda w: RLDP_TABLES[w.table],
        code=code_files("rldp", "tables", "method", "stages"),
    output:
        "results/rldp/tables/{table}.csv",
    wildcard_constraints:
        table="|".join(RLDP_TABLES),
    log:
        "logs/rldp/table_{table}.log",
    benchmark:
        "logs/rldp/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 rldp table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule rldp_figure:
    group:
        "rldp_summary"
    input:
        config="results/rldp/config.yaml",
        table=lambda w: f"results/rldp/tables/{RLDP_FIGURE_TABLE[w.figure]}.csv",
        code=code_files("rldp", "figures"),
    output:
        report(
            "results/rldp/figures/{figure}.png",
            caption="../report/rldp_figure.rst",
            category="rldp",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(RLDP_FIGURES),
    log:
        "logs/rldp/figure_{figure}.log",
    benchmark:
        "logs/rldp/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 rldp figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule rldp_claims:
    group:
        "rldp_summary"
    input:
        config="results/rldp/config.yaml",
        tables=expand("results/rldp/tables/{table}.csv", table=["main", "llm", "timing"]),
        others=expand("results/rldp/tables/{table}.csv", table=["frontier", "difficulty", "layers"]),
        figures=expand("results/rldp/figures/{figure}.png", figure=RLDP_FIGURES),
        code=code_files("rldp", "paper_claims"),
    output:
        claims="results/rldp/claims.json",
        metrics="results/rldp/metrics.json",
    log:
        "logs/rldp/claims.log",
    benchmark:
        "logs/rldp/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 rldp claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

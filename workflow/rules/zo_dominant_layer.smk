# zo_dominant_layer: zeroth-order fine-tuning is dominated by one layer (seed abstract 4).
# One job per task x seed (SmolLM2 loads in seconds; every analysis of the task shares the cached residual stream),
# tables aggregate over seeds, figures are drawn from tables, claims computed from tables.
ZO_DOMINANT_LAYER = scale_settings("zo_dominant_layer")
ZO_DOMINANT_LAYER_TASKS = list(ZO_DOMINANT_LAYER.tasks.names)
ZO_DOMINANT_LAYER_DATA = {"imdb": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc", "mmlu_subject": "ensemble_mi_mmlu"}
ZO_DOMINANT_LAYER_FIGURES = {"outlier_profile": "detector", "zo_snr_per_layer": "layers", "propagation": "layers"}
ZO_DOMINANT_LAYER_MINILM = "results/zo_dominant_layer/runs/minilm_profile.csv"
ZO_DOMINANT_LAYER_TABLES = {
    "layers": expand("results/zo_dominant_layer/runs/{task}/seed{seed}_layers.csv", task=ZO_DOMINANT_LAYER_TASKS, seed=SEEDS),
    "main": expand("results/zo_dominant_layer/runs/{task}/seed{seed}_methods.csv", task=ZO_DOMINANT_LAYER_TASKS, seed=SEEDS),
}
ZO_DOMINANT_LAYER_TABLES["detector"] = ZO_DOMINANT_LAYER_TABLES["layers"] + [ZO_DOMINANT_LAYER_MINILM]
# SmolLM2 is exported once as safetensors (temp: deleted after the last run job) so that each job loads it in ~2 s
ZO_DOMINANT_LAYER_EXPORT = ZO_DOMINANT_LAYER.model == "smollm2"

EXTRA_OUTPUTS["zo_dominant_layer"] = (
    ZO_DOMINANT_LAYER_TABLES["layers"] + ZO_DOMINANT_LAYER_TABLES["main"] + [ZO_DOMINANT_LAYER_MINILM]
)


rule zo_dominant_layer_model:
    input:
        config="results/zo_dominant_layer/config.yaml",
    output:
        temp(directory("results/zo_dominant_layer/model")),
    log:
        "logs/zo_dominant_layer/model.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/model.tsv"
    resources:
        mem_mb=3000,
        runtime=10,
    shell:
        "python -m neurips26 zo_dominant_layer model --config {input.config} --output {output} > {log} 2>&1"


rule zo_dominant_layer_second_model:
    input:
        data=[f"data/raw/{ZO_DOMINANT_LAYER_DATA[t]}/provenance.json" for t in ZO_DOMINANT_LAYER_TASKS],
        config="results/zo_dominant_layer/config.yaml",
        code=code_files("zo_dominant_layer", "data", "method", "second_model"),
    output:
        ZO_DOMINANT_LAYER_MINILM,
    log:
        "logs/zo_dominant_layer/second_model.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/second_model.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 zo_dominant_layer second_model --config {input.config} --input {input.data}"
        " --output {output} --threads {threads} > {log} 2>&1"


rule zo_dominant_layer_config:
    localrule: True
    input:
        hydra_files("zo_dominant_layer"),
    output:
        "results/zo_dominant_layer/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/zo_dominant_layer/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 zo_dominant_layer config --output {output} {params.overrides} > {log} 2>&1"


rule zo_dominant_layer_run:
    input:
        data=lambda w: f"data/raw/{ZO_DOMINANT_LAYER_DATA[w.task]}/provenance.json",
        model=["results/zo_dominant_layer/model"] if ZO_DOMINANT_LAYER_EXPORT else [],
        config="results/zo_dominant_layer/config.yaml",
        code=code_files("zo_dominant_layer", "data", "models", "method", "lora", "experiments"),
    output:
        layers="results/zo_dominant_layer/runs/{task}/seed{seed}_layers.csv",
        methods="results/zo_dominant_layer/runs/{task}/seed{seed}_methods.csv",
    wildcard_constraints:
        task="|".join(ZO_DOMINANT_LAYER_TASKS),
        seed=r"\d+",
    log:
        "logs/zo_dominant_layer/run_{task}_seed{seed}.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/run_{task}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m neurips26 zo_dominant_layer run --config {input.config} --input {input.data} {input.model}"
        " --output {output.layers} {output.methods} --seed {wildcards.seed} --threads {threads}"
        " task={wildcards.task} > {log} 2>&1"


rule zo_dominant_layer_table:
    group:
        "zo_dominant_layer_summary"
    input:
        config="results/zo_dominant_layer/config.yaml",
        runs=lambda w: ZO_DOMINANT_LAYER_TABLES[w.table],
        code=code_files("zo_dominant_layer", "tables"),
    output:
        "results/zo_dominant_layer/tables/{table}.csv",
    wildcard_constraints:
        table="|".join(ZO_DOMINANT_LAYER_TABLES),
    log:
        "logs/zo_dominant_layer/table_{table}.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 zo_dominant_layer table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule zo_dominant_layer_figure:
    group:
        "zo_dominant_layer_summary"
    input:
        config="results/zo_dominant_layer/config.yaml",
        table=lambda w: f"results/zo_dominant_layer/tables/{ZO_DOMINANT_LAYER_FIGURES[w.figure]}.csv",
        code=code_files("zo_dominant_layer", "figures"),
    output:
        report(
            "results/zo_dominant_layer/figures/{figure}.png",
            caption="../report/zo_dominant_layer_figure.rst",
            category="zo_dominant_layer",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(ZO_DOMINANT_LAYER_FIGURES),
    log:
        "logs/zo_dominant_layer/figure_{figure}.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 zo_dominant_layer figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule zo_dominant_layer_claims:
    group:
        "zo_dominant_layer_summary"
    input:
        config="results/zo_dominant_layer/config.yaml",
        tables=expand("results/zo_dominant_layer/tables/{table}.csv", table=["layers", "main", "detector"]),
        figures=expand("results/zo_dominant_layer/figures/{figure}.png", figure=ZO_DOMINANT_LAYER_FIGURES),
        code=code_files("zo_dominant_layer", "paper_claims", "models", "method"),
    output:
        claims="results/zo_dominant_layer/claims.json",
        metrics="results/zo_dominant_layer/metrics.json",
    log:
        "logs/zo_dominant_layer/claims.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 zo_dominant_layer claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

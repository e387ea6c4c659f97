# zo_dominant_layer: zeroth-order fine-tuning is dominated by one layer (seed abstract 4).
# Per task x seed: a probe job (detector, propagation, diagnostics on the probe model) and a training job (the layer
# sweep and the baselines on train.model); tables aggregate over seeds, figures are drawn from tables, claims from tables.
ZO_DOMINANT_LAYER = scale_settings("zo_dominant_layer")
# data: real runs MeZO's tasks (tasks.real_names; zo_dominant_layer/mezo_tasks.py)
ZO_DOMINANT_LAYER_TASKS = list(ZO_DOMINANT_LAYER.tasks.real_names if config["data"] == "real"
                               else ZO_DOMINANT_LAYER.tasks.names)
ZO_DOMINANT_LAYER_DATA = {"imdb": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc", "mmlu_subject": "ensemble_mi_mmlu",
                          "sst2": "mezo_glue", "rte": "mezo_glue", "boolq": "mezo_boolq"}
ZO_DOMINANT_LAYER_FIGURES = {"outlier_profile": "detector", "zo_snr_per_layer": "layers", "propagation": "layers",
                             "layer_sweep_acc": "sweep", "dev_curves": "curves_seeds"}
ZO_DOMINANT_LAYER_MINILM_PATTERN = "results/zo_dominant_layer/runs/seed{seed}_minilm_profile.csv"
ZO_DOMINANT_LAYER_MINILM = expand(ZO_DOMINANT_LAYER_MINILM_PATTERN, seed=SEEDS)
ZO_DOMINANT_LAYER_TABLES = {
    "layers": expand("results/zo_dominant_layer/runs/{task}/seed{seed}_layers.csv", task=ZO_DOMINANT_LAYER_TASKS, seed=SEEDS),
    "sweep": expand("results/zo_dominant_layer/runs/{task}/seed{seed}_sweep.csv", task=ZO_DOMINANT_LAYER_TASKS, seed=SEEDS),
    "curves_seeds": expand("results/zo_dominant_layer/runs/{task}/seed{seed}_curves.csv", task=ZO_DOMINANT_LAYER_TASKS, seed=SEEDS),
}
ZO_DOMINANT_LAYER_TABLES["detector"] = ZO_DOMINANT_LAYER_TABLES["layers"] + ZO_DOMINANT_LAYER_MINILM
# the per-seed values the claims test (contract v2): the run CSVs as they are, and l* per model x task x seed
ZO_DOMINANT_LAYER_TABLES["layers_seeds"] = ZO_DOMINANT_LAYER_TABLES["layers"]
ZO_DOMINANT_LAYER_TABLES["sweep_seeds"] = ZO_DOMINANT_LAYER_TABLES["sweep"]
ZO_DOMINANT_LAYER_TABLES["detector_seeds"] = ZO_DOMINANT_LAYER_TABLES["detector"]
# SmolLM2 is exported once as safetensors (temp: deleted after the last job that reads it) so that each job loads it
# in ~2 s; the probe and the training jobs read it when their model is smollm2
ZO_DOMINANT_LAYER_PROBE_MODEL = ["results/zo_dominant_layer/model"] if ZO_DOMINANT_LAYER.model == "smollm2" else []
ZO_DOMINANT_LAYER_TRAIN_MODEL = ["results/zo_dominant_layer/model"] if ZO_DOMINANT_LAYER.train.model == "smollm2" else []

EXTRA_OUTPUTS["zo_dominant_layer"] = (
    ZO_DOMINANT_LAYER_TABLES["layers"] + ZO_DOMINANT_LAYER_TABLES["sweep"] + ZO_DOMINANT_LAYER_TABLES["curves_seeds"]
    + ZO_DOMINANT_LAYER_MINILM
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
        ZO_DOMINANT_LAYER_MINILM_PATTERN,
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/zo_dominant_layer/second_model_seed{seed}.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/second_model_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 zo_dominant_layer second_model --config {input.config} --input {input.data}"
        " --seed {wildcards.seed} --output {output} --threads {threads} > {log} 2>&1"


rule zo_dominant_layer_probe:
    input:
        data=lambda w: f"data/raw/{ZO_DOMINANT_LAYER_DATA[w.task]}/provenance.json",
        model=ZO_DOMINANT_LAYER_PROBE_MODEL,
        config="results/zo_dominant_layer/config.yaml",
        code=code_files("zo_dominant_layer", "data", "models", "method", "experiments"),
    output:
        "results/zo_dominant_layer/runs/{task}/seed{seed}_layers.csv",
    wildcard_constraints:
        task="|".join(ZO_DOMINANT_LAYER_TASKS),
        seed=r"\d+",
    log:
        "logs/zo_dominant_layer/probe_{task}_seed{seed}.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/probe_{task}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m neurips26 zo_dominant_layer probe --config {input.config} --input {input.data} {input.model}"
        " --output {output} --seed {wildcards.seed} --threads {threads} task={wildcards.task} > {log} 2>&1"


rule zo_dominant_layer_train:
    input:
        data=lambda w: f"data/raw/{ZO_DOMINANT_LAYER_DATA[w.task]}/provenance.json",
        model=ZO_DOMINANT_LAYER_TRAIN_MODEL,
        config="results/zo_dominant_layer/config.yaml",
        code=code_files("zo_dominant_layer", "data", "models", "method", "lora", "experiments", "training", "sweep"),
    output:
        sweep="results/zo_dominant_layer/runs/{task}/seed{seed}_sweep.csv",
        curves="results/zo_dominant_layer/runs/{task}/seed{seed}_curves.csv",
    wildcard_constraints:
        task="|".join(ZO_DOMINANT_LAYER_TASKS),
        seed=r"\d+",
    log:
        "logs/zo_dominant_layer/train_{task}_seed{seed}.log",
    benchmark:
        "logs/zo_dominant_layer/benchmarks/train_{task}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    shell:
        "python -m neurips26 zo_dominant_layer train --config {input.config} --input {input.data} {input.model}"
        " --output {output.sweep} {output.curves} --seed {wildcards.seed} --threads {threads}"
        " task={wildcards.task} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "zo_dominant_layer",
    [
        *table_steps("zo_dominant_layer", ZO_DOMINANT_LAYER_TABLES),
        *figure_steps("zo_dominant_layer", ZO_DOMINANT_LAYER_FIGURES),
        claims_step(
            "zo_dominant_layer",
            expand("results/zo_dominant_layer/tables/{table}.csv",
                   table=["layers_seeds", "sweep_seeds", "curves_seeds", "detector_seeds"]),
        ),
    ],
    code=code_files("zo_dominant_layer", "tables", "figures", "paper_claims", "models", "method"),
    mem_mb=2000,
)

# ensemble_mi: budgeted ensemble selection by greedy mutual information (seed abstract 3).
# Member predictions are cached once per task, family and seed (classic; minilm on minilm.tasks; bagged on bagged.tasks; the seed
# draws the train / pool split and the members' randomness) or for all tasks of a seed in one job (smollm2, paper scale: loading
# the causal LM costs ~20 s, paid once per seed); runs read the caches of their seed, one job per task x seed (simulator: per K x seed), every
# method and budget inside (a job costs seconds; splitting further would pay the imports again). Tables aggregate, figures
# are drawn from tables, claims computed from tables.
ENSEMBLE_MI = scale_settings("ensemble_mi")
# data: real runs the paper's four tasks from the hub (tasks.real_names; AG News is fetched as ensemble_mi_bbc's real
# source, MedMCQA with MMLU: ensemble_mi/data.py DATASETS)
ENSEMBLE_MI_TASKS = list(ENSEMBLE_MI.tasks.real_names if config["data"] == "real" else ENSEMBLE_MI.tasks.names)
ENSEMBLE_MI_DATA = {"imdb": "ensemble_mi_imdb", "rt": "ensemble_mi_imdb", "bbc": "ensemble_mi_bbc",
                    "mmlu": "ensemble_mi_mmlu", "ag_news": "ensemble_mi_bbc", "medmcqa": "ensemble_mi_mmlu"}

ENSEMBLE_MI_POOL = list(ENSEMBLE_MI.llm_pool.models)  # the paper's LLM pool (config llm_pool), when enabled

# member families per task: classic always; MiniLM on minilm.tasks; the anchor cluster and disjoint-data members on
# bagged.tasks; SmolLM2 everywhere when enabled
ENSEMBLE_MI_FAMILIES = {
    task: ["classic"]
    + (["minilm"] if ENSEMBLE_MI.minilm.enabled and task in list(ENSEMBLE_MI.minilm.tasks) else [])
    + (["bagged"] if ENSEMBLE_MI.bagged.enabled and task in list(ENSEMBLE_MI.bagged.tasks) else [])
    + (["smollm2"] if ENSEMBLE_MI.llm.enabled else [])
    + ([f"pool_{m}" for m in ENSEMBLE_MI_POOL] if ENSEMBLE_MI.llm_pool.enabled else [])
    for task in ENSEMBLE_MI_TASKS
}

ENSEMBLE_MI_CLASSES = [int(k) for k in ENSEMBLE_MI.simulator.classes]
ENSEMBLE_MI_RUNS = [f"sim_K{k}" for k in ENSEMBLE_MI_CLASSES] + [f"real_{t}" for t in ENSEMBLE_MI_TASKS]
ENSEMBLE_MI_FIGURES = {"acc_vs_budget": "main", "mi_vs_budget": "main", "error_floor_vs_rho": "floor"}
# table -> the per-seed run CSVs it aggregates
ENSEMBLE_MI_TABLES = {
    table: expand("results/ensemble_mi/runs/{run}/seed{seed}.csv", run=runs, seed=SEEDS)
    for table, runs in [("main", ENSEMBLE_MI_RUNS), ("estimator", ENSEMBLE_MI_RUNS),
                        ("selected_models", ENSEMBLE_MI_RUNS), ("floor", ["floor"])]
}

EXTRA_OUTPUTS["ensemble_mi"] = (
    ENSEMBLE_MI_TABLES["main"]
    + ENSEMBLE_MI_TABLES["floor"]
    + [f"results/ensemble_mi/predictions/{t}/seed{s}/{f}.csv" for t in ENSEMBLE_MI_TASKS for f in ENSEMBLE_MI_FAMILIES[t]
       for s in SEEDS]
    + ["results/ensemble_mi/tables/estimator.csv"]
)


rule ensemble_mi_predict:
    input:
        data=lambda w: f"data/raw/{ENSEMBLE_MI_DATA[w.task]}/provenance.json",
        config="results/ensemble_mi/config.yaml",
        code=code_files("ensemble_mi", "data", "members", "embedding", "bagged", "predictions"),
    output:
        "results/ensemble_mi/predictions/{task}/seed{seed}/{family}.csv",
    wildcard_constraints:
        task="|".join(ENSEMBLE_MI_TASKS),
        family="classic|minilm|bagged",
        seed=r"\d+",
    log:
        "logs/ensemble_mi/predict_{task}_{family}_seed{seed}.log",
    benchmark:
        "logs/ensemble_mi/benchmarks/predict_{task}_{family}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    shell:
        "python -m neurips26 ensemble_mi predict_{wildcards.family} --config {input.config} --input {input.data}"
        " --seed {wildcards.seed} --output {output} --threads {threads} task={wildcards.task} > {log} 2>&1"


rule ensemble_mi_predict_llm:
    input:
        data=[f"data/raw/{ENSEMBLE_MI_DATA[t]}/provenance.json" for t in ENSEMBLE_MI_TASKS],
        config="results/ensemble_mi/config.yaml",
        code=code_files("ensemble_mi", "data", "llm", "predictions"),
    output:
        expand("results/ensemble_mi/predictions/{task}/seed{{seed}}/smollm2.csv", task=ENSEMBLE_MI_TASKS),
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/ensemble_mi/predict_smollm2_seed{seed}.log",
    benchmark:
        "logs/ensemble_mi/benchmarks/predict_smollm2_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m neurips26 ensemble_mi predict_llm --config {input.config} --input {input.data}"
        " --seed {wildcards.seed} --output {output} --threads {threads} > {log} 2>&1"


# One model of the paper's LLM pool on every task of a seed (loading a 1-8B model is paid once per job).
rule ensemble_mi_predict_pool:
    input:
        data=[f"data/raw/{ENSEMBLE_MI_DATA[t]}/provenance.json" for t in ENSEMBLE_MI_TASKS],
        config="results/ensemble_mi/config.yaml",
        code=code_files("ensemble_mi", "data", "llm", "predictions"),
    output:
        expand("results/ensemble_mi/predictions/{task}/seed{{seed}}/pool_{{model}}.csv", task=ENSEMBLE_MI_TASKS),
    wildcard_constraints:
        seed=r"\d+",
        model="|".join(m.replace(".", r"\.") for m in ENSEMBLE_MI_POOL),
    log:
        "logs/ensemble_mi/predict_pool_{model}_seed{seed}.log",
    benchmark:
        "logs/ensemble_mi/benchmarks/predict_pool_{model}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=32000,
        runtime=120,
    shell:
        "python -m neurips26 ensemble_mi predict_pool --config {input.config} --input {input.data}"
        " --seed {wildcards.seed} --output {output} --threads {threads} model={wildcards.model} > {log} 2>&1"


rule ensemble_mi_run_real:
    input:
        predictions=lambda w: expand(
            "results/ensemble_mi/predictions/{task}/seed{seed}/{family}.csv", task=w.task, seed=w.seed,
            family=ENSEMBLE_MI_FAMILIES[w.task],
        ),
        config="results/ensemble_mi/config.yaml",
        code=code_files("ensemble_mi", "aggregator", "information", "method", "baselines", "experiments", "copula",
                        "copula_fit"),
    output:
        "results/ensemble_mi/runs/real_{task}/seed{seed}.csv",
    wildcard_constraints:
        task="|".join(ENSEMBLE_MI_TASKS),
        seed=r"\d+",
    log:
        "logs/ensemble_mi/run_real_{task}_seed{seed}.log",
    benchmark:
        "logs/ensemble_mi/benchmarks/run_real_{task}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=20,
    shell:
        "python -m neurips26 ensemble_mi run_real --config {input.config} --input {input.predictions}"
        " --seed {wildcards.seed} --output {output} --threads {threads} task={wildcards.task} > {log} 2>&1"


rule ensemble_mi_run_sim:
    input:
        config="results/ensemble_mi/config.yaml",
        code=code_files("ensemble_mi", "copula", "copula_fit", "aggregator", "information", "method", "baselines",
                        "experiments"),
    output:
        "results/ensemble_mi/runs/sim_K{classes}/seed{seed}.csv",
    wildcard_constraints:
        classes="|".join(str(k) for k in ENSEMBLE_MI_CLASSES),
        seed=r"\d+",
    log:
        "logs/ensemble_mi/run_sim_K{classes}_seed{seed}.log",
    benchmark:
        "logs/ensemble_mi/benchmarks/run_sim_K{classes}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=20,
    shell:
        "python -m neurips26 ensemble_mi run_sim --config {input.config} --seed {wildcards.seed} --output {output}"
        " --threads {threads} classes={wildcards.classes} > {log} 2>&1"


rule ensemble_mi_run_floor:
    input:
        config="results/ensemble_mi/config.yaml",
        code=code_files("ensemble_mi", "copula", "experiments"),
    output:
        "results/ensemble_mi/runs/floor/seed{seed}.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/ensemble_mi/run_floor_seed{seed}.log",
    benchmark:
        "logs/ensemble_mi/benchmarks/run_floor_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=20,
    shell:
        "python -m neurips26 ensemble_mi run_floor --config {input.config} --seed {wildcards.seed} --output {output}"
        " --threads {threads} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "ensemble_mi",
    [
        *table_steps("ensemble_mi", ENSEMBLE_MI_TABLES),
        *figure_steps("ensemble_mi", ENSEMBLE_MI_FIGURES),
        # the claims compare per-seed values: they read the run CSVs (the tables hold means over seeds)
        claims_step("ensemble_mi", sorted({path for paths in ENSEMBLE_MI_TABLES.values() for path in paths})),
    ],
    code=code_files("ensemble_mi", "tables", "figures", "paper_claims"),
)

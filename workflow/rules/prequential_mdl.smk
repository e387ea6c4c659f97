# prequential_mdl: prequential regret as an MDL generalization signal (seed abstract 12). The sweep (task x label noise
# x width x n x seed) is fixed in config/prequential_mdl before the configured seeds run. One job per task x noise
# level x seed, training the width x n runs of that cell (2 at default scale, 2,500 and 10,000 examples): a job's start
# (Python, torch, Hydra, pandas) costs about 3 s, and grouping by noise level keeps the jobs comparably heavy. Runs are
# concatenated into tables/runs.csv; correlations and the bound are separate rules on that table; the positive control
# is one small job; figures and claims are drawn from tables only.
PREQ_SETTINGS = scale_settings("prequential_mdl")
PREQ_TASKS = list(PREQ_SETTINGS.tasks)
PREQ_NOISES = [str(float(p)) for p in PREQ_SETTINGS.sweep.label_noise]
# data: embedded reads the stand-ins (Fashion-MNIST, MNIST pairs); data: real reads CIFAR-10/100 (md5-checked archives)
PREQ_DATA_KEY = "real_dataset" if config["data"] == "real" else "dataset"
PREQ_DATA = {task: f"data/raw/{PREQ_SETTINGS.tasks[task][PREQ_DATA_KEY]}/provenance.json" for task in PREQ_TASKS}
PREQ_RUNS = expand("results/prequential_mdl/runs/{task}/noise{noise}/seed{seed}.csv", task=PREQ_TASKS,
                   noise=PREQ_NOISES, seed=SEEDS)
# figure -> the table it is drawn from
PREQ_FIGURES = {f"regret_vs_testerr_{task}": "runs" for task in PREQ_TASKS}
PREQ_FIGURES["measure_correlations"] = "correlations"

EXTRA_OUTPUTS["prequential_mdl"] = PREQ_RUNS + ["results/prequential_mdl/tables/runs.csv"]


rule prequential_mdl_config:
    localrule: True
    input:
        hydra_files("prequential_mdl"),
    output:
        "results/prequential_mdl/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/prequential_mdl/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 prequential_mdl config --output {output} {params.overrides} > {log} 2>&1"


rule prequential_mdl_run:
    input:
        config="results/prequential_mdl/config.yaml",
        data=lambda w: PREQ_DATA[w.task],
        code=code_files("prequential_mdl", "method", "baselines", "data", "experiments"),
    output:
        "results/prequential_mdl/runs/{task}/noise{noise}/seed{seed}.csv",
    wildcard_constraints:
        task="|".join(PREQ_TASKS),
        noise=r"[0-9.]+",
        seed=r"\d+",
    log:
        "logs/prequential_mdl/run_{task}_noise{noise}_seed{seed}.log",
    benchmark:
        "logs/prequential_mdl/benchmarks/run_{task}_noise{noise}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 prequential_mdl run --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output} --threads {threads} run.task={wildcards.task} run.noise={wildcards.noise} > {log} 2>&1"


rule prequential_mdl_table_runs:
    group:
        "prequential_mdl_summary"
    input:
        config="results/prequential_mdl/config.yaml",
        runs=PREQ_RUNS,
        code=code_files("prequential_mdl", "tables"),
    output:
        "results/prequential_mdl/tables/runs.csv",
    log:
        "logs/prequential_mdl/table_runs.log",
    benchmark:
        "logs/prequential_mdl/benchmarks/table_runs.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 prequential_mdl table_runs --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


# The positive control (regret and noisy-label test error tied by construction): every seed in one job, seconds.
rule prequential_mdl_control:
    input:
        config="results/prequential_mdl/config.yaml",
        code=code_files("prequential_mdl", "method", "baselines", "data", "experiments"),
    output:
        "results/prequential_mdl/tables/control_runs.csv",
    log:
        "logs/prequential_mdl/control.log",
    benchmark:
        "logs/prequential_mdl/benchmarks/control.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 prequential_mdl control --config {input.config} --output {output}"
        " --threads {threads} > {log} 2>&1"


# Correlations (with bootstrap intervals) and the bound: aggregation rules of their own, on the runs table.
rule prequential_mdl_table:
    group:
        "prequential_mdl_summary"
    input:
        config="results/prequential_mdl/config.yaml",
        runs="results/prequential_mdl/tables/runs.csv",
        code=code_files("prequential_mdl", "tables", "correlations"),
    output:
        "results/prequential_mdl/tables/{table}.csv",
    wildcard_constraints:
        table="correlations|bound",
    log:
        "logs/prequential_mdl/table_{table}.log",
    benchmark:
        "logs/prequential_mdl/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 prequential_mdl table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule prequential_mdl_figure:
    group:
        "prequential_mdl_summary"
    input:
        config="results/prequential_mdl/config.yaml",
        table=lambda w: f"results/prequential_mdl/tables/{PREQ_FIGURES[w.figure]}.csv",
        code=code_files("prequential_mdl", "figures"),
    output:
        report(
            "results/prequential_mdl/figures/{figure}.png",
            caption="../report/prequential_mdl_figure.rst",
            category="prequential_mdl",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(PREQ_FIGURES),
    log:
        "logs/prequential_mdl/figure_{figure}.log",
    benchmark:
        "logs/prequential_mdl/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 prequential_mdl figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule prequential_mdl_claims:
    group:
        "prequential_mdl_summary"
    input:
        config="results/prequential_mdl/config.yaml",
        tables=expand("results/prequential_mdl/tables/{table}.csv", table=["correlations", "bound", "control_runs"]),
        figures=expand("results/prequential_mdl/figures/{figure}.png", figure=PREQ_FIGURES),
        code=code_files("prequential_mdl", "paper_claims"),
    output:
        claims="results/prequential_mdl/claims.json",
        metrics="results/prequential_mdl/metrics.json",
    log:
        "logs/prequential_mdl/claims.log",
    benchmark:
        "logs/prequential_mdl/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 prequential_mdl claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

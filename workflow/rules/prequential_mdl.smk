# prequential_mdl: prequential regret as an MDL generalization signal (seed abstract 12). The sweep (task x label noise
# x width x n x seed) is fixed in config/prequential_mdl before the configured seeds run. One job per task x noise
# level x seed, training the width x n runs of that cell (2 at default scale, 2,500 and 10,000 examples): a job's start
# (Python, torch, Hydra, pandas) costs about 3 s, and grouping by noise level keeps the jobs comparably heavy. Runs are
# concatenated into tables/runs.csv; correlations and the bound are computed from that table; the positive control
# is one small job; figures and claims are drawn from tables only (tables, figures and claims: one summary job).
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


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "prequential_mdl",
    [
        *table_steps(
            "prequential_mdl",
            {
                "runs": PREQ_RUNS,
                "correlations": ["results/prequential_mdl/tables/runs.csv"],
                "bound": ["results/prequential_mdl/tables/runs.csv"],
            },
        ),
        *figure_steps("prequential_mdl", PREQ_FIGURES),
        claims_step(
            "prequential_mdl",
            expand(
                "results/prequential_mdl/tables/{table}.csv",
                table=["correlations", "bound", "control_runs", "runs"],  # runs: the paired bootstrap
            ),
        ),
    ],
    code=code_files("prequential_mdl", "tables", "correlations", "figures", "paper_claims"),
    mem_mb=2000,
    runtime=20,
)


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

# kondo_gate: the Kondo gate for the Delightful Policy Gradient (seed abstract 8). One job per testbed x seed (every
# method and keep rate of that testbed inside: a torch import costs seconds here, see the paper README); tables
# aggregate over seeds; figures are drawn from tables only; claims are computed from tables.
# The reversal lengths depend on the scale, so the testbed list is read from the paper's Hydra tree at parse time.
KONDO_GATE_LENGTHS = [int(n) for n in scale_settings("kondo_gate").reversal.lengths]
KONDO_GATE_TASKS = ["mnist"] + [f"reversal_L{n}" for n in KONDO_GATE_LENGTHS]
# table -> the testbeds whose per-seed runs it aggregates
KONDO_GATE_TABLES = {"main": KONDO_GATE_TASKS, "curves": KONDO_GATE_TASKS, "bandit": ["bandit"]}
# figure -> the table it is drawn from
KONDO_GATE_FIGURES = {
    "pareto_backward_vs_acc": "main",
    "learning_curves": "curves",
    "screen_comparison": "main",
    "bandit_cosine": "bandit",
}

EXTRA_OUTPUTS["kondo_gate"] = expand(
    "results/kondo_gate/runs/{task}/seed{seed}.csv", task=["bandit", *KONDO_GATE_TASKS], seed=SEEDS
) + ["results/kondo_gate/tables/curves.csv", "results/kondo_gate/tables/bandit.csv"]


# The run stage and its extra arguments per testbed: MNIST reads the prepared data, reversal takes its length.
KONDO_GATE_STAGE = {"bandit": "run_bandit", "mnist": "run_mnist --input data/raw/kondo_gate_mnist/provenance.json"}
KONDO_GATE_STAGE.update({f"reversal_L{n}": f"run_reversal length={n}" for n in KONDO_GATE_LENGTHS})


rule kondo_gate_config:
    localrule: True
    input:
        hydra_files("kondo_gate"),
    output:
        "results/kondo_gate/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/kondo_gate/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 kondo_gate config --output {output} {params.overrides} > {log} 2>&1"


rule kondo_gate_run:
    input:
        config="results/kondo_gate/config.yaml",
        data=lambda w: ["data/raw/kondo_gate_mnist/provenance.json"] if w.task == "mnist" else [],
        code=code_files("kondo_gate", "method", "baselines", "bandit", "data", "models", "tasks", "training",
                        "screening", "experiments"),
    output:
        run="results/kondo_gate/runs/{task}/seed{seed}.csv",
        wallclock="results/kondo_gate/runs/{task}/seed{seed}.wallclock.csv",
    wildcard_constraints:
        task="|".join(["bandit", *KONDO_GATE_TASKS]),
        seed=r"\d+",
    params:
        stage=lambda w: KONDO_GATE_STAGE[w.task],
    log:
        "logs/kondo_gate/run_{task}_seed{seed}.log",
    benchmark:
        "logs/kondo_gate/benchmarks/run_{task}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 kondo_gate {params.stage} --config {input.config} --seed {wildcards.seed}"
        " --output {output.run} {output.wallclock} --threads {threads} > {log} 2>&1"


rule kondo_gate_table:
    group:
        "kondo_gate_summary"
    input:
        config="results/kondo_gate/config.yaml",
        runs=lambda w: expand(
            "results/kondo_gate/runs/{task}/seed{seed}.csv", task=KONDO_GATE_TABLES[w.table], seed=SEEDS
        ),
        code=code_files("kondo_gate", "tables"),
    output:
        "results/kondo_gate/tables/{table}.csv",
    wildcard_constraints:
        table="|".join(KONDO_GATE_TABLES),
    log:
        "logs/kondo_gate/table_{table}.log",
    benchmark:
        "logs/kondo_gate/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 kondo_gate table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


# Wall-clock beside the backward-pass counts: not deterministic, so outside the manifest and never read by a claim.
rule kondo_gate_wallclock:
    group:
        "kondo_gate_summary"
    input:
        config="results/kondo_gate/config.yaml",
        runs=expand("results/kondo_gate/runs/{task}/seed{seed}.wallclock.csv", task=KONDO_GATE_TASKS, seed=SEEDS),
    output:
        "results/kondo_gate/wallclock.csv",
    log:
        "logs/kondo_gate/wallclock.log",
    benchmark:
        "logs/kondo_gate/benchmarks/wallclock.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 kondo_gate table_wallclock --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule kondo_gate_figure:
    group:
        "kondo_gate_summary"
    input:
        config="results/kondo_gate/config.yaml",
        table=lambda w: f"results/kondo_gate/tables/{KONDO_GATE_FIGURES[w.figure]}.csv",
        code=code_files("kondo_gate", "figures"),
    output:
        report(
            "results/kondo_gate/figures/{figure}.png",
            caption="../report/kondo_gate_figure.rst",
            category="kondo_gate",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(KONDO_GATE_FIGURES),
    log:
        "logs/kondo_gate/figure_{figure}.log",
    benchmark:
        "logs/kondo_gate/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 kondo_gate figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule kondo_gate_claims:
    group:
        "kondo_gate_summary"
    input:
        config="results/kondo_gate/config.yaml",
        tables=expand("results/kondo_gate/tables/{table}.csv", table=["main", "bandit"]),
        figures=expand("results/kondo_gate/figures/{figure}.png", figure=KONDO_GATE_FIGURES),
        wallclock="results/kondo_gate/wallclock.csv",
        code=code_files("kondo_gate", "paper_claims"),
    output:
        claims="results/kondo_gate/claims.json",
        metrics="results/kondo_gate/metrics.json",
    log:
        "logs/kondo_gate/claims.log",
    benchmark:
        "logs/kondo_gate/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 kondo_gate claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

# kondo_gate: the Kondo gate for the Delightful Policy Gradient (seed abstract 8). One job per testbed x seed (every
# method and keep rate of that testbed inside: a torch import costs seconds here, see the paper README); tables
# aggregate over seeds; figures are drawn from tables only; claims are computed from tables.
# The reversal lengths depend on the scale, so the testbed list is read from the paper's Hydra tree at parse time.
KONDO_GATE_LENGTHS = [int(n) for n in scale_settings("kondo_gate").reversal.lengths]
KONDO_GATE_TASKS = ["mnist"] + [f"reversal_L{n}" for n in KONDO_GATE_LENGTHS]
# table -> the testbeds whose per-seed runs it aggregates
# (main_seeds, bandit_seeds: the per-seed rows before the mean over seeds, whose paired differences the claims read)
KONDO_GATE_TABLES = {"main": KONDO_GATE_TASKS, "curves": KONDO_GATE_TASKS, "bandit": ["bandit"],
                     "main_seeds": KONDO_GATE_TASKS, "bandit_seeds": ["bandit"]}
# figure -> the table it is drawn from
KONDO_GATE_FIGURES = {
    "pareto_backward_vs_acc": "main",
    "learning_curves": "curves",
    "screen_comparison": "main",
    "bandit_cosine": "bandit",
}

EXTRA_OUTPUTS["kondo_gate"] = expand(
    "results/kondo_gate/runs/{task}/seed{seed}.csv", task=["bandit", *KONDO_GATE_TASKS], seed=SEEDS
) + [f"results/kondo_gate/tables/{table}.csv" for table in ("curves", "bandit", "main_seeds", "bandit_seeds")]


# The run stage and its extra arguments per testbed: MNIST reads the prepared data, reversal takes its length.
KONDO_GATE_STAGE = {"bandit": "run_bandit", "mnist": "run_mnist --input data/raw/kondo_gate_mnist/provenance.json"}
KONDO_GATE_STAGE.update({f"reversal_L{n}": f"run_reversal length={n}" for n in KONDO_GATE_LENGTHS})


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


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "kondo_gate",
    [
        *table_steps(
            "kondo_gate",
            {
                table: expand("results/kondo_gate/runs/{task}/seed{seed}.csv", task=tasks, seed=SEEDS)
                for table, tasks in KONDO_GATE_TABLES.items()
            },
        ),
        (
            "table_wallclock",
            expand("results/kondo_gate/runs/{task}/seed{seed}.wallclock.csv", task=KONDO_GATE_TASKS, seed=SEEDS),
            ["results/kondo_gate/wallclock.csv"],
        ),
        *figure_steps("kondo_gate", KONDO_GATE_FIGURES),
        claims_step("kondo_gate", expand("results/kondo_gate/tables/{table}.csv", table=["main_seeds", "bandit_seeds"])),
    ],
    code=code_files("kondo_gate", "tables", "figures", "paper_claims"),
)

# dodge_it: TRACE collision outcomes from RGB-D as RL feedback (seed abstract 13). Per seed: BC from the obstacle-blind
# expert, then GRPO with the success-only and with the DODGE-IT reward (one job each), then one evaluation job of every
# method on held-out layouts. Tables pool the seeds; figures are drawn from tables (rollout frames: the first seed's
# saved frames); claims are computed from tables.

DODGE_IT_RL = ["success", "dodge", "contact"]  # contact: the positive control (simulator contacts as penalty)
# table -> the per-seed run files it aggregates
DODGE_IT_TABLES = {"safelibero_proxy": "episodes", "trace_vs_contacts": "episodes", "per_seed": "episodes",
                   "rl_curves": "curves", "convergence": "curves"}
DODGE_IT_FIGURES = {"sr_car_scatter": "safelibero_proxy", "rl_curves": "rl_curves"}
DODGE_IT_PRESENTATION = ["tables", "figures", "paper_claims", "convergence"]
DODGE_IT_SEED_RUNS = {
    "episodes": "results/dodge_it/runs/seed{seed}/episodes.csv",
    "curves": "results/dodge_it/runs/seed{seed}/curve_{kind}.csv",
}

EXTRA_OUTPUTS["dodge_it"] = [
    *expand("results/dodge_it/runs/seed{seed}/{name}", seed=SEEDS,
            name=["bc.npz", "bc_log.csv", "episodes.csv", "frames.npz"]),
    *expand("results/dodge_it/runs/seed{seed}/policy_{kind}.npz", seed=SEEDS, kind=DODGE_IT_RL),
    *expand("results/dodge_it/runs/seed{seed}/curve_{kind}.csv", seed=SEEDS, kind=DODGE_IT_RL),
    "results/dodge_it/tables/per_seed.csv",
    "results/dodge_it/tables/rl_curves.csv",
    "results/dodge_it/tables/convergence.csv",
]


rule dodge_it_bc:
    input:
        config="results/dodge_it/config.yaml",
        data="data/raw/dodge_it_tabletop/provenance.json",
        code=code_files("dodge_it", exclude=DODGE_IT_PRESENTATION),
        mjcf="src/neurips26/papers/dodge_it/assets/tabletop.xml",
    output:
        policy="results/dodge_it/runs/seed{seed}/bc.npz",
        log="results/dodge_it/runs/seed{seed}/bc_log.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/dodge_it/bc_seed{seed}.log",
    benchmark:
        "logs/dodge_it/benchmarks/bc_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    shell:
        "python -m neurips26 dodge_it run_bc --config {input.config} --seed {wildcards.seed}"
        " --output {output.policy} {output.log} --threads {threads} > {log} 2>&1"


rule dodge_it_rl:
    input:
        config="results/dodge_it/config.yaml",
        bc="results/dodge_it/runs/seed{seed}/bc.npz",
        code=code_files("dodge_it", exclude=DODGE_IT_PRESENTATION),
        mjcf="src/neurips26/papers/dodge_it/assets/tabletop.xml",
    output:
        policy="results/dodge_it/runs/seed{seed}/policy_{kind}.npz",
        curve="results/dodge_it/runs/seed{seed}/curve_{kind}.csv",
    wildcard_constraints:
        seed=r"\d+",
        kind="|".join(DODGE_IT_RL),
    log:
        "logs/dodge_it/rl_{kind}_seed{seed}.log",
    benchmark:
        "logs/dodge_it/benchmarks/rl_{kind}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    shell:
        "python -m neurips26 dodge_it run_rl_{wildcards.kind} --config {input.config} --seed {wildcards.seed}"
        " --input {input.bc} --output {output.policy} {output.curve} --threads {threads} > {log} 2>&1"


rule dodge_it_eval:
    input:
        config="results/dodge_it/config.yaml",
        policies=[
            "results/dodge_it/runs/seed{seed}/bc.npz",
            "results/dodge_it/runs/seed{seed}/policy_success.npz",
            "results/dodge_it/runs/seed{seed}/policy_dodge.npz",
            "results/dodge_it/runs/seed{seed}/policy_contact.npz",
        ],
        code=code_files("dodge_it", exclude=DODGE_IT_PRESENTATION),
        mjcf="src/neurips26/papers/dodge_it/assets/tabletop.xml",
    output:
        episodes="results/dodge_it/runs/seed{seed}/episodes.csv",
        frames="results/dodge_it/runs/seed{seed}/frames.npz",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/dodge_it/eval_seed{seed}.log",
    benchmark:
        "logs/dodge_it/benchmarks/eval_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 dodge_it run_eval --config {input.config} --seed {wildcards.seed}"
        " --input {input.policies} --output {output.episodes} {output.frames} --threads {threads} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "dodge_it",
    [
        *table_steps(
            "dodge_it",
            {
                table: expand(DODGE_IT_SEED_RUNS[kind], seed=SEEDS, kind=DODGE_IT_RL)
                for table, kind in DODGE_IT_TABLES.items()
            },
        ),
        *figure_steps("dodge_it", DODGE_IT_FIGURES),
        # the first seed's saved rollout frames
        (
            "figure_rollout_frames",
            [f"results/dodge_it/runs/seed{SEEDS[0]}/frames.npz"],
            ["results/dodge_it/figures/rollout_frames.png"],
        ),
        claims_step(
            "dodge_it",
            expand("results/dodge_it/tables/{table}.csv",
                   table=["safelibero_proxy", "trace_vs_contacts", "per_seed", "convergence"]),
        ),
    ],
    code=code_files("dodge_it", *DODGE_IT_PRESENTATION),
    captions={"results/dodge_it/figures/rollout_frames.png": "../report/dodge_it_frames.rst"},
)

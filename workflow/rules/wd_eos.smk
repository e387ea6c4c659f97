# wd_eos: weight decay at the Edge of Stability (seed abstract 7). Every grid point (arch, decay, eta, lambda) x seed is
# one job writing its trace; traces are concatenated into one table, summarised into tables/main.csv; figures and claims
# are drawn from tables only.
#
# The grid: Snakemake builds the DAG before the config stage runs, so it is composed at parse time (scale_settings, the
# same Hydra tree and scale the stages read); the point is encoded in the output path and handed back to the run stage
# as run.* overrides.
from neurips26.papers.wd_eos.grid import run_seeds as wd_eos_run_seeds  # cheap: no torch

WD_EOS_SETTINGS = scale_settings("wd_eos")
WD_EOS_GRID = WD_EOS_SETTINGS.grid
WD_EOS_DATASET = WD_EOS_SETTINGS.datasets[config["data"]]  # digits (embedded) or cifar10 (real)
WD_EOS_POINTS = [
    f"{arch}_{decay}_eta{eta}_wd{wd}"
    for arch in ("mlp", "cnn")
    for eta in WD_EOS_GRID[arch]["etas"]
    for decay, wds in (("coupled", WD_EOS_GRID[arch]["wds"]), ("decoupled", WD_EOS_GRID[arch]["decoupled_wds"]))
    for wd in wds
]
# every configured seed s at its pre-registered fresh run seed s + preregistration.fresh_offset (issue #71), and for an
# arch with grid.<arch>.replicates = R also at + 1000 r, r < R (README, issue 29)
WD_EOS_OFFSET = int((WD_EOS_SETTINGS.get("preregistration") or {}).get("fresh_offset", 0))
WD_EOS_RUNS = [
    f"results/wd_eos/runs/{point}/seed{seed}.csv"
    for point in WD_EOS_POINTS
    for seed in wd_eos_run_seeds(WD_EOS_GRID, point.split("_")[0], SEEDS, WD_EOS_OFFSET)
]
# figure -> the table it is drawn from
WD_EOS_FIGURES = {
    "sharpness_traces_mlp": "traces",
    "sharpness_traces_cnn": "traces",
    "plateau_vs_wd": "main",
    "alignment": "traces",
    "ntk_velocity": "main",
}

EXTRA_OUTPUTS["wd_eos"] = WD_EOS_RUNS + ["results/wd_eos/tables/traces.csv"]


rule wd_eos_run:
    input:
        config="results/wd_eos/config.yaml",
        data=f"data/raw/{WD_EOS_DATASET}/provenance.json",
        code=code_files("wd_eos", "method", "baselines", "data", "models", "measures", "experiments", "grid"),
    output:
        "results/wd_eos/runs/{arch}_{decay}_eta{eta}_wd{wd}/seed{seed}.csv",
    wildcard_constraints:
        arch="mlp|cnn",
        decay="coupled|decoupled",
        eta=r"[0-9.]+",
        wd=r"[0-9.]+",
        seed=r"\d+",
    log:
        "logs/wd_eos/run_{arch}_{decay}_eta{eta}_wd{wd}_seed{seed}.log",
    benchmark:
        "logs/wd_eos/benchmarks/run_{arch}_{decay}_eta{eta}_wd{wd}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 wd_eos run --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output} --threads {threads} run.arch={wildcards.arch} run.decay={wildcards.decay}"
        " run.eta={wildcards.eta} run.wd={wildcards.wd} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "wd_eos",
    [
        *table_steps(
            "wd_eos",
            {
                "traces": WD_EOS_RUNS,
                "main": ["results/wd_eos/tables/traces.csv"],
                "runs": ["results/wd_eos/tables/traces.csv"],
            },
        ),
        *figure_steps("wd_eos", WD_EOS_FIGURES),
        claims_step("wd_eos", ["results/wd_eos/tables/main.csv", "results/wd_eos/tables/runs.csv"]),
    ],
    code=code_files("wd_eos", "summary", "grid", "figures", "paper_claims", "controls"),
)

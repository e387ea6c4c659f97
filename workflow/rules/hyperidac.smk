# hyperidac: domain-conditioned class imbalance (seed abstract 5). One job per seed caches the frozen extractor's
# features of every candidate and test image (Fashion-MNIST rendered into 4 domains; the seed draws the extractor, the
# candidates and the renderings: issue #51); one job per regime x seed then reads its seed's features, not
# images, and trains all methods on the DCI allocation of its regime (one job per method would spend more time
# starting Python and torch than training a head on 4,000 feature rows). Tables, figures and claims are one summary job
# (one pandas / matplotlib start-up).
# One job per regime x seed (default, paper: they run in parallel on the cores), or one job for every regime and seed
# (tiny: a single torch start-up; the stage then reads the seeds from the config).
HYP_SETTINGS = scale_settings("hyperidac")
if HYP_SETTINGS.jobs.per_regime:
    HYP_RUNS = expand("results/hyperidac/runs/{part}/seed{seed}.csv", part=list(HYP_SETTINGS.regimes), seed=SEEDS)
else:
    HYP_RUNS = ["results/hyperidac/runs/all/seeds.csv"]
# each run job's second output: its pseudo-labels' per-cell accuracy over epochs (the bias-reinforcement diagnostic)
HYP_PSEUDO = [path.replace("hyperidac/runs", "hyperidac/pseudo") for path in HYP_RUNS]
HYP_TABLES = ["allocation", "main", "ablation", "per_seed", "cells", "pseudo_labels"]
# figure -> the table it is drawn from
HYP_FIGURES = {"acc_vs_dci": "main", "cell_accuracy_heatmap": "cells"}

EXTRA_OUTPUTS["hyperidac"] = HYP_RUNS + HYP_PSEUDO + expand("results/hyperidac/features/seed{seed}.npz", seed=SEEDS)


rule hyperidac_features:
    input:
        data="data/raw/fashion_mnist/provenance.json",
        config="results/hyperidac/config.yaml",
        code=code_files("hyperidac", "data"),
    output:
        "results/hyperidac/features/seed{seed}.npz",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/hyperidac/features_seed{seed}.log",
    benchmark:
        "logs/hyperidac/benchmarks/features_seed{seed}.tsv"
    threads: 2
    resources:
        mem_mb=3000,
        runtime=20,
    shell:
        "python -m neurips26 hyperidac features --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output} --threads {threads} > {log} 2>&1"


rule hyperidac_run:
    input:
        # the seed's own feature cache; the all-seeds job (tiny) reads every seed's, in the config's order
        features=lambda w: expand("results/hyperidac/features/seed{seed}.npz", seed=SEEDS)
        if w.which == "seeds" else f"results/hyperidac/features/{w.which}.npz",
        config="results/hyperidac/config.yaml",
        code=code_files("hyperidac", "method", "training", "debias", "baselines", "allocation", "experiments", "data", "stages"),
    output:
        runs="results/hyperidac/runs/{part}/{which}.csv",
        pseudo="results/hyperidac/pseudo/{part}/{which}.csv",
    wildcard_constraints:
        part="|".join([*HYP_SETTINGS.regimes, "all"]),
        which=r"seed\d+|seeds",
    params:
        seed=lambda w: "" if w.which == "seeds" else f"--seed {w.which[4:]}",
    log:
        "logs/hyperidac/run_{part}_{which}.log",
    benchmark:
        "logs/hyperidac/benchmarks/run_{part}_{which}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 hyperidac run --config {input.config} --input {input.features} {params.seed}"
        " --output {output.runs} {output.pseudo} --threads {threads} run.part={wildcards.part} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "hyperidac",
    [
        ("tables", HYP_RUNS + HYP_PSEUDO, expand("results/hyperidac/tables/{table}.csv", table=HYP_TABLES)),
        *figure_steps("hyperidac", HYP_FIGURES),
        claims_step(
            "hyperidac",
            expand("results/hyperidac/tables/{table}.csv", table=["allocation", "per_seed", "pseudo_labels"]),
        ),
    ],
    code=code_files("hyperidac", "tables", "allocation", "experiments", "stages", "figures", "paper_claims"),
)

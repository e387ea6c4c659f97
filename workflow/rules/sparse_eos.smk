# sparse_eos: sparse connectivity and generalization below the Edge of Stability (seed abstract 9). Three experiments x
# seeds fan out as one job each (sphere: fc / lc GD runs; images: conv / lc / fc on natural vs unstructured patches;
# geometry: patch statistics); tables aggregate over seeds; figures and claims are drawn from tables only (one summary job).
# The image sources depend on the data mode (embedded: scikit-image + Fashion-MNIST; real: CIFAR-10) and the scale.
from neurips26.papers.sparse_eos.data import DATASETS as SPARSE_EOS_DATASETS, image_sources as sparse_eos_sources

SPARSE_EOS_EXPERIMENTS = ["sphere", "images", "geometry"]
SPARSE_EOS_DATA = [
    f"data/raw/{SPARSE_EOS_DATASETS[source]}/provenance.json"
    for source in sparse_eos_sources(scale_settings("sparse_eos").images, config["data"])
]
# table -> the experiments whose per-seed runs it aggregates
SPARSE_EOS_TABLES = {"main": ["sphere", "images"], "geometry": ["geometry"]}
# figure -> the table it is drawn from
SPARSE_EOS_FIGURES = {
    "gap_vs_dim": "main",
    "gap_vs_receptive_field": "main",
    "step_size": "main",
    "patch_pca_spectrum": "geometry",
    "activation_coverage": "geometry",
}
# modules that only present results: never the experiments' code
SPARSE_EOS_PRESENTATION = ["tables", "figures", "paper_claims"]

EXTRA_OUTPUTS["sparse_eos"] = expand(
    "results/sparse_eos/runs/{experiment}/seed{seed}.csv", experiment=SPARSE_EOS_EXPERIMENTS, seed=SEEDS
)


rule sparse_eos_run:
    input:
        config="results/sparse_eos/config.yaml",
        data=lambda w: [] if w.experiment == "sphere" else SPARSE_EOS_DATA,
        code=code_files("sparse_eos", exclude=SPARSE_EOS_PRESENTATION),
    output:
        "results/sparse_eos/runs/{experiment}/seed{seed}.csv",
    wildcard_constraints:
        experiment="|".join(SPARSE_EOS_EXPERIMENTS),
        seed=r"\d+",
    log:
        "logs/sparse_eos/run_{experiment}_seed{seed}.log",
    benchmark:
        "logs/sparse_eos/benchmarks/run_{experiment}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "python -m neurips26 sparse_eos run_{wildcards.experiment} --config {input.config} --seed {wildcards.seed}"
        " --input {input.data} --output {output} --threads {threads} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "sparse_eos",
    [
        *table_steps(
            "sparse_eos",
            {
                table: expand("results/sparse_eos/runs/{experiment}/seed{seed}.csv", experiment=experiments, seed=SEEDS)
                for table, experiments in SPARSE_EOS_TABLES.items()
            },
        ),
        *figure_steps("sparse_eos", SPARSE_EOS_FIGURES),
        claims_step("sparse_eos", expand("results/sparse_eos/tables/{table}.csv", table=SPARSE_EOS_TABLES)),
    ],
    code=code_files("sparse_eos", "tables", "figures", "paper_claims", "stages"),
)

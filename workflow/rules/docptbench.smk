# docptbench: DocPTBench, photographed document parsing and translation (seed abstract 15). One job per seed and
# document kind (generated English / Spanish reports, R manual pages): camera simulation, unwarping, OCR with every
# parser, scoring and translation of every condition. Tables pool the jobs; figures are drawn from tables.
DOCPTBENCH_KINDS = list(scale_settings("docptbench")["kinds"])
DOCPTBENCH_DATA = "data/raw/r_doc_pdf/provenance.json"
DOCPTBENCH_TABLES = ["parsing", "translation", "pages"]
DOCPTBENCH_FIGURES = {"edit_by_condition": "parsing", "severity_curve": "parsing"}  # figure -> its table
DOCPTBENCH_RUNS = expand("results/docptbench/runs/{kind}/seed{seed}.csv", kind=DOCPTBENCH_KINDS, seed=SEEDS)

EXTRA_OUTPUTS["docptbench"] = (
    DOCPTBENCH_RUNS
    + expand("results/docptbench/runs/{kind}/seed{seed}_camera.json", kind=DOCPTBENCH_KINDS, seed=SEEDS)
    + ["results/docptbench/runs/examples.npz"]
)


rule docptbench_run:
    input:
        data=DOCPTBENCH_DATA,
        config="results/docptbench/config.yaml",
        code=code_files("docptbench", exclude=("tables", "figures", "paper_claims", "bootstrap")),
    output:
        run="results/docptbench/runs/{kind}/seed{seed}.csv",
        camera="results/docptbench/runs/{kind}/seed{seed}_camera.json",
    wildcard_constraints:
        kind="|".join(DOCPTBENCH_KINDS),
        seed=r"\d+",
    log:
        "logs/docptbench/run_{kind}_seed{seed}.log",
    benchmark:
        "logs/docptbench/benchmarks/run_{kind}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "OMP_THREAD_LIMIT={threads} python -m neurips26 docptbench run_{wildcards.kind} --config {input.config}"
        " --input {input.data} --seed {wildcards.seed} --output {output.run} {output.camera} --threads {threads}"
        " > {log} 2>&1"


rule docptbench_examples:
    input:
        data=DOCPTBENCH_DATA,
        config="results/docptbench/config.yaml",
        code=code_files("docptbench", exclude=("tables", "figures", "paper_claims", "bootstrap")),
    output:
        "results/docptbench/runs/examples.npz",
    params:
        seed=SEEDS[0],
    log:
        "logs/docptbench/examples.log",
    benchmark:
        "logs/docptbench/benchmarks/examples.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    shell:
        "python -m neurips26 docptbench examples --config {input.config} --seed {params.seed} --output {output}"
        " --threads {threads} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "docptbench",
    [
        *table_steps("docptbench", {table: DOCPTBENCH_RUNS for table in DOCPTBENCH_TABLES}),
        *figure_steps("docptbench", DOCPTBENCH_FIGURES),
        (
            "figure_degradation_examples",
            ["results/docptbench/runs/examples.npz"],
            ["results/docptbench/figures/degradation_examples.png"],
        ),
        claims_step("docptbench", ["results/docptbench/tables/pages.csv"]),
    ],
    code=code_files("docptbench", "tables", "figures", "paper_claims"),
)

# dofp_lut: DoFP-LUT, lookup-table colour-polarization demosaicking (seed abstract 17). One job per seed (synthesis,
# teacher + generic-LUT training, LUT compilation and the evaluation of every method inside: the methods share the
# scenes and the trained heads, and a torch import costs seconds). Wall-clock timing and the throughput benchmark are
# separate jobs that take every core the run grants (so no other job of this workflow runs beside them) and write
# files outside the manifest (not deterministic); tables/main.csv reads the timing, see the paper README.
DOFP_LUT_FIRST_SEED = SEEDS[0]
DOFP_LUT_DATA = "data/raw/dofp_lut_skimage/provenance.json"
DOFP_LUT_FIGURES = {"pareto_quality_runtime": "main", "component_ablation": "ablation"}  # figure -> its table
DOFP_LUT_ABLATIONS = ["A", "P", "H"]  # each stage's teacher retrained without it, on the first seed only (time)

EXTRA_OUTPUTS["dofp_lut"] = expand("results/dofp_lut/runs/seed{seed}.{ext}", seed=SEEDS, ext=["csv", "npz"]) + expand(
    "results/dofp_lut/runs/ablation_{stage}_seed{seed}.csv", stage=DOFP_LUT_ABLATIONS, seed=DOFP_LUT_FIRST_SEED
)


# "All cores" for the timing and throughput jobs: a request, not a count of this machine. A local run lowers it to
# --cores; on a cluster it is the job's --cpus-per-task. (workflow.cores does not exist on a cluster: no --cores there.)
DOFP_LUT_ALL_THREADS = 8


rule dofp_lut_config:
    localrule: True
    input:
        hydra_files("dofp_lut"),
    output:
        "results/dofp_lut/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/dofp_lut/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 dofp_lut config --output {output} {params.overrides} > {log} 2>&1"


rule dofp_lut_run:
    input:
        data=DOFP_LUT_DATA,
        config="results/dofp_lut/config.yaml",
        code=code_files("dofp_lut", exclude=("tables", "figures", "paper_claims", "stages", "timing")),
    output:
        run="results/dofp_lut/runs/seed{seed}.csv",
        arrays="results/dofp_lut/runs/seed{seed}.npz",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/dofp_lut/run_seed{seed}.log",
    benchmark:
        "logs/dofp_lut/benchmarks/run_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 dofp_lut run --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output.run} {output.arrays} --threads {threads} > {log} 2>&1"


rule dofp_lut_ablation:
    input:
        data=DOFP_LUT_DATA,
        config="results/dofp_lut/config.yaml",
        code=code_files("dofp_lut", exclude=("tables", "figures", "paper_claims", "stages", "timing")),
    output:
        "results/dofp_lut/runs/ablation_{stage}_seed{seed}.csv",
    wildcard_constraints:
        stage="|".join(DOFP_LUT_ABLATIONS),
        seed=r"\d+",
    log:
        "logs/dofp_lut/ablation_{stage}_seed{seed}.log",
    benchmark:
        "logs/dofp_lut/benchmarks/ablation_{stage}_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 dofp_lut run_ablation_{wildcards.stage} --config {input.config} --input {input.data}"
        " --seed {wildcards.seed} --output {output} --threads {threads} > {log} 2>&1"


# ms per megapixel of every method, by the protocol of config `timing` (one measuring thread; the job holds every core).
rule dofp_lut_timing:
    input:
        data=DOFP_LUT_DATA,
        arrays=f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.npz",
        config="results/dofp_lut/config.yaml",
        code=code_files("dofp_lut", exclude=("tables", "figures", "paper_claims")),
    output:
        "results/dofp_lut/timing.csv",
    log:
        "logs/dofp_lut/timing.log",
    benchmark:
        "logs/dofp_lut/benchmarks/timing.tsv"
    threads: DOFP_LUT_ALL_THREADS
    resources:
        mem_mb=3000,
        runtime=15,
    shell:
        "python -m neurips26 dofp_lut timing --config {input.config} --input {input.data} {input.arrays}"
        " --output {output} --threads {threads} > {log} 2>&1"


# Benchmark (not a claim): MP/s at several frame sizes, one thread and all of the job's threads, and the bandwidth bound.
rule dofp_lut_throughput:
    input:
        data=DOFP_LUT_DATA,
        arrays=f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.npz",
        config="results/dofp_lut/config.yaml",
        code=code_files("dofp_lut", exclude=("tables", "figures", "paper_claims")),
    output:
        "results/dofp_lut/throughput.csv",
    log:
        "logs/dofp_lut/throughput.log",
    benchmark:
        "logs/dofp_lut/benchmarks/throughput.tsv"
    threads: DOFP_LUT_ALL_THREADS
    resources:
        mem_mb=6000,
        runtime=20,
    shell:
        "python -m neurips26 dofp_lut throughput --config {input.config} --input {input.data} {input.arrays}"
        " --output {output} --threads {threads} > {log} 2>&1"


rule dofp_lut_table:
    group:
        "dofp_lut_summary"
    input:
        config="results/dofp_lut/config.yaml",
        runs=expand("results/dofp_lut/runs/seed{seed}.csv", seed=SEEDS),
        timing="results/dofp_lut/timing.csv",
        code=code_files("dofp_lut", "tables"),
    output:
        "results/dofp_lut/tables/main.csv",
    log:
        "logs/dofp_lut/table_main.log",
    benchmark:
        "logs/dofp_lut/benchmarks/table_main.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 dofp_lut table_main --config {input.config} --input {input.runs} {input.timing}"
        " --output {output} > {log} 2>&1"


rule dofp_lut_table_ablation:
    group:
        "dofp_lut_summary"
    input:
        config="results/dofp_lut/config.yaml",
        runs=[f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.csv"]
        + expand("results/dofp_lut/runs/ablation_{stage}_seed{seed}.csv", stage=DOFP_LUT_ABLATIONS, seed=DOFP_LUT_FIRST_SEED),
        code=code_files("dofp_lut", "tables"),
    output:
        "results/dofp_lut/tables/ablation.csv",
    log:
        "logs/dofp_lut/table_ablation.log",
    benchmark:
        "logs/dofp_lut/benchmarks/table_ablation.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 dofp_lut table_ablation --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule dofp_lut_figure:
    group:
        "dofp_lut_summary"
    input:
        config="results/dofp_lut/config.yaml",
        table=lambda w: f"results/dofp_lut/tables/{DOFP_LUT_FIGURES[w.figure]}.csv",
        code=code_files("dofp_lut", "figures"),
    output:
        report(
            "results/dofp_lut/figures/{figure}.png",
            caption="../report/dofp_lut_figure.rst",
            category="dofp_lut",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(DOFP_LUT_FIGURES),
    log:
        "logs/dofp_lut/figure_{figure}.log",
    benchmark:
        "logs/dofp_lut/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 dofp_lut figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule dofp_lut_figure_maps:
    group:
        "dofp_lut_summary"
    input:
        config="results/dofp_lut/config.yaml",
        arrays=f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.npz",
        code=code_files("dofp_lut", "figures"),
    output:
        report(
            "results/dofp_lut/figures/dolp_aolp_maps.png",
            caption="../report/dofp_lut_figure.rst",
            category="dofp_lut",
            subcategory="figures",
        ),
    log:
        "logs/dofp_lut/figure_dolp_aolp_maps.log",
    benchmark:
        "logs/dofp_lut/benchmarks/figure_dolp_aolp_maps.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 dofp_lut figure_dolp_aolp_maps --config {input.config} --input {input.arrays}"
        " --output {output} > {log} 2>&1"


rule dofp_lut_claims:
    group:
        "dofp_lut_summary"
    input:
        config="results/dofp_lut/config.yaml",
        tables=["results/dofp_lut/tables/main.csv", "results/dofp_lut/tables/ablation.csv"],
        figures=expand("results/dofp_lut/figures/{figure}.png", figure=[*DOFP_LUT_FIGURES, "dolp_aolp_maps"]),
        throughput="results/dofp_lut/throughput.csv",
        code=code_files("dofp_lut", "paper_claims"),
    output:
        claims="results/dofp_lut/claims.json",
        metrics="results/dofp_lut/metrics.json",
    log:
        "logs/dofp_lut/claims.log",
    benchmark:
        "logs/dofp_lut/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 dofp_lut claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

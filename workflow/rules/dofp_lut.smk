# dofp_lut: DoFP-LUT, lookup-table colour-polarization demosaicking (seed abstract 17). One job per seed (synthesis,
# teacher + generic-LUT training, LUT compilation and the evaluation of every method inside: the methods share the
# scenes and the trained heads, and a torch import costs seconds). Wall-clock timing and the throughput benchmark are
# separate jobs that take every core the run grants (so no other job of this workflow runs beside them) and write
# files outside the manifest (not deterministic); tables/main.csv reads the timing, see the paper README.
DOFP_LUT_FIRST_SEED = SEEDS[0]
DOFP_LUT_DATA = "data/raw/dofp_lut_skimage/provenance.json"
DOFP_LUT_FIGURES = {"pareto_quality_runtime": "main", "component_ablation": "ablation"}  # figure -> its table
# each stage's teacher retrained without it, on every seed (claim 3 compares paired per-seed values; the ablation table
# and figure show the first seed)
DOFP_LUT_ABLATIONS = ["A", "P", "H"]
DOFP_LUT_ABLATION_RUNS = expand("results/dofp_lut/runs/ablation_{stage}_seed{seed}.csv", stage=DOFP_LUT_ABLATIONS, seed=SEEDS)

# modules the run jobs never import (timing, its harness and claims): editing them does not re-run the experiments
DOFP_LUT_NOT_IN_RUNS = ("tables", "figures", "paper_claims", "stages", "timing", "harness", "pipelines", "determinism",
                        "cv_bilinear", "roofline", "gather_bench", "speed_claims")
# the throughput sweep and the roofline are artifacts no claim reads (the claims read timing, determinism, realtime)
EXTRA_OUTPUTS["dofp_lut"] = (
    expand("results/dofp_lut/runs/seed{seed}.{ext}", seed=SEEDS, ext=["csv", "npz"])
    + DOFP_LUT_ABLATION_RUNS
    + ["results/dofp_lut/throughput.csv", "results/dofp_lut/roofline.csv"]
)


# "All cores" for the timing and throughput jobs: a request, not a count of this machine. A local run lowers it to
# --cores; on a cluster it is the job's --cpus-per-task. (workflow.cores does not exist on a cluster: no --cores there.)
DOFP_LUT_ALL_THREADS = 8


rule dofp_lut_run:
    input:
        data=DOFP_LUT_DATA,
        config="results/dofp_lut/config.yaml",
        code=code_files("dofp_lut", exclude=DOFP_LUT_NOT_IN_RUNS),
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
        code=code_files("dofp_lut", exclude=DOFP_LUT_NOT_IN_RUNS),
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


# Equal-terms ms per megapixel of every method, by the protocol of config `timing` (one measuring thread; the job holds
# every core), and the output digests over runs and thread counts (config `determinism`).
rule dofp_lut_timing:
    input:
        data=DOFP_LUT_DATA,
        arrays=f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.npz",
        config="results/dofp_lut/config.yaml",
        code=code_files("dofp_lut", exclude=("tables", "figures", "paper_claims", "speed_claims")),
    output:
        timing="results/dofp_lut/timing.csv",
        determinism="results/dofp_lut/determinism.csv",
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


# MP/s at several frame sizes, one thread and all of the job's threads, and the bandwidth bound (benchmark); frames per
# second on the sensor frame (config `realtime`: the real-time claim).
rule dofp_lut_throughput:
    input:
        data=DOFP_LUT_DATA,
        arrays=f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.npz",
        config="results/dofp_lut/config.yaml",
        code=code_files("dofp_lut", exclude=("tables", "figures", "paper_claims", "speed_claims")),
    output:
        throughput="results/dofp_lut/throughput.csv",
        realtime="results/dofp_lut/realtime.csv",
        roofline="results/dofp_lut/roofline.csv",
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


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "dofp_lut",
    [
        *table_steps(
            "dofp_lut",
            {
                "main": [*expand("results/dofp_lut/runs/seed{seed}.csv", seed=SEEDS), "results/dofp_lut/timing.csv"],
                "ablation": [f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.csv"]
                + expand(
                    "results/dofp_lut/runs/ablation_{stage}_seed{seed}.csv", stage=DOFP_LUT_ABLATIONS, seed=DOFP_LUT_FIRST_SEED
                ),
            },
        ),
        *figure_steps("dofp_lut", DOFP_LUT_FIGURES),
        (
            "figure_dolp_aolp_maps",
            [f"results/dofp_lut/runs/seed{DOFP_LUT_FIRST_SEED}.npz"],
            ["results/dofp_lut/figures/dolp_aolp_maps.png"],
        ),
        claims_step(
            "dofp_lut",
            [
                "results/dofp_lut/tables/main.csv",
                "results/dofp_lut/tables/ablation.csv",
                *expand("results/dofp_lut/runs/seed{seed}.csv", seed=SEEDS),
                *DOFP_LUT_ABLATION_RUNS,
                "results/dofp_lut/timing.csv",
                "results/dofp_lut/determinism.csv",
                "results/dofp_lut/realtime.csv",
            ],
        ),
    ],
    code=code_files("dofp_lut", "tables", "figures", "paper_claims"),
)

# results/robustness: every selected paper's claims rerun on the seed sets of config key `robustness` (disjoint from the
# configured seeds), one job per (paper, seed set), so that --cores N and the cluster profile run the sets side by side.
# Not part of results/all (it costs K more runs per paper):  snakemake --cores 8 results/robustness  (docs/robustness.md)


# One paper on one seed set: a Snakemake run of its own in a work folder that shares config/, src/, workflow/ and data/
# (robustness/run_set.py says why). The configured run's claims.json is an input, so the data every set reads is
# prepared once, by the main run, before any set starts.
rule robustness_set:
    input:
        configured="results/{paper}/claims.json",
    output:
        "results/{paper}/robustness/seeds-{seeds}.json",
    wildcard_constraints:
        paper="|".join(IMPLEMENTED_IDS),
        seeds=r"\d+(-\d+)*",
    params:
        workdir=lambda w: f".snakemake/neurips26/robustness/{w.paper}/seeds-{w.seeds}",
        run=f"--scale {config['scale']} --data {config['data']} --device {config['device']}",
    threads: robustness_threads()
    log:
        "logs/{paper}/robustness_{seeds}.log",
    benchmark:
        "logs/{paper}/benchmarks/robustness_{seeds}.tsv"
    resources:
        mem_mb=4000,
        runtime=240,
    shell:
        "python -m neurips26 robustness set --paper {wildcards.paper} --seeds {wildcards.seeds} --workdir {params.workdir}"
        " --output {output} --cores {threads} {params.run} > {log} 2>&1"


rule robustness_paper:
    localrule: True
    input:
        configured="results/{paper}/claims.json",
        sets=expand("results/{{paper}}/robustness/seeds-{seeds}.json", seeds=ROBUSTNESS_SETS),
    output:
        "results/{paper}/robustness.json",
    wildcard_constraints:
        paper="|".join(IMPLEMENTED_IDS),
    log:
        "logs/{paper}/robustness.log",
    shell:
        "python -m neurips26 robustness aggregate --configured {input.configured} --sets {input.sets} --output {output}"
        " > {log} 2>&1"


# The results page of results/all with each verdict's "holds in k of K" and the unstable claims marked.
rule robustness_report:
    localrule: True
    input:
        report_inputs(),
        robustness=expand("results/{paper}/robustness.json", paper=PAPER_IDS),
    output:
        directory("results/robustness"),
    params:
        papers=PAPER_IDS,
        producers=lambda w, input: artifact_producers([p for p in input if p not in input.robustness]),
    log:
        "logs/robustness_report.log",
    shell:
        "python -m neurips26 report --output {output} --papers {params.papers} --producers {params.producers}"
        " --robustness > {log} 2>&1"

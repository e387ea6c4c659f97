# neurips26: one DAG for every paper. Thin on purpose: config, schema validation, the rule files, and the final target.
#   snakemake --cores 8 results/all                   (default scale, embedded data, offline)
#   snakemake --cores 8 results/all --config scale=tiny
#   snakemake --profile profiles/slurm results/all    (cluster)
from snakemake.utils import min_version

min_version("9.0")

# `snakemake --lint` asks for a conda environment or container per rule. Deliberately none: every rule runs the project's
# own pinned environment (requirements.lock, installed by `make install`), which installs offline-capable from PyPI alone;
# conda channels are not reachable on the machines this project targets. tests/workflow/test_dag.py allows only this lint.


envvars:
    "PATH",


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/config.smk"


# One rule file per implemented paper, named after its id (config/papers.yaml decides which exist).
for paper_id in IMPLEMENTED_IDS:

    include: f"workflow/rules/{paper_id}.smk"


include: "workflow/rules/summary.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/robustness.smk"


rule all:
    input:
        "results/all",
    default_target: True


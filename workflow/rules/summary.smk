# Every paper's summary job, `<paper_id>_summary`, from one template: the tables, figures and claims of a paper take
# seconds each, mostly start-up, so one job runs them in order in one process (each still reads only saved files: a
# table its runs, a figure its table, the claims the tables). A paper's rule file registers its steps with
# `paper_summary(...)` (common.smk); the job's outputs are the steps' outputs and its inputs the files the steps read
# that no step writes, so the rule cannot drift from the command it runs.

for paper_id, summary in SUMMARIES.items():

    rule:
        name:
            f"{paper_id}_summary"
        group:
            f"{paper_id}_summary"
        input:
            registry=f"config/claims/{paper_id}.yaml",  # the claims of the abstract the claims stage checks against
            config=f"results/{paper_id}/config.yaml",
            runs=summary["reads"],
            code=summary["code"],
        output:
            tables=summary["tables"],
            figures=report(
                summary["figures"],
                caption="../report/paper_figure.rst",
                category=paper_id,
                subcategory="figures",
            ),
            **summary["captioned"],
            claims=f"results/{paper_id}/claims.json",
            metrics=f"results/{paper_id}/metrics.json",
        params:
            paper=paper_id,
            steps=stage_steps(paper_id, summary["steps"]),
        log:
            f"logs/{paper_id}/summary.log",
        benchmark:
            f"logs/{paper_id}/benchmarks/summary.tsv"
        resources:
            mem_mb=summary["mem_mb"],
            runtime=summary["runtime"],
        shell:
            "python -m neurips26 {params.paper} {params.steps} > {log} 2>&1"

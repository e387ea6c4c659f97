# mental_imagery: do multimodal models imagine? (seed abstract 19). One job per seed trains the three variants (A actions
# only, B + visual supervision, C + visual tokens) on the same puzzles, measures the solve rate by replay and probes the
# hidden states; tables aggregate over seeds; figures are drawn from tables; claims from tables.
MENTAL_IMAGERY_DATA = ["data/raw/rush_hour_18k/provenance.json", "data/raw/dofp_lut_skimage/provenance.json"]
MENTAL_IMAGERY_TABLES = ["solve", "probe"]
MENTAL_IMAGERY_FIGURES = {"solve_rate_by_task": "solve", "probe_acc_vs_step": "probe", "decoded_states": "decoded"}
MENTAL_IMAGERY_PRESENTATION = ["tables", "figures", "paper_claims", "stages"]

EXTRA_OUTPUTS["mental_imagery"] = expand(
    "results/mental_imagery/runs/seed{seed}{suffix}.csv", seed=SEEDS, suffix=["", "_decoded"]
) + ["results/mental_imagery/tables/decoded.csv"]


rule mental_imagery_config:
    localrule: True
    input:
        hydra_files("mental_imagery"),
    output:
        "results/mental_imagery/config.yaml",
    params:
        overrides=paper_overrides(),
    log:
        "logs/mental_imagery/config.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m neurips26 mental_imagery config --output {output} {params.overrides} > {log} 2>&1"


rule mental_imagery_run:
    input:
        data=MENTAL_IMAGERY_DATA,
        config="results/mental_imagery/config.yaml",
        code=code_files("mental_imagery", exclude=MENTAL_IMAGERY_PRESENTATION),
    output:
        run="results/mental_imagery/runs/seed{seed}.csv",
        decoded="results/mental_imagery/runs/seed{seed}_decoded.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/mental_imagery/run_seed{seed}.log",
    benchmark:
        "logs/mental_imagery/benchmarks/run_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 mental_imagery run --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output.run} {output.decoded} --threads {threads} > {log} 2>&1"


rule mental_imagery_table:
    group:
        "mental_imagery_summary"
    input:
        config="results/mental_imagery/config.yaml",
        runs=expand("results/mental_imagery/runs/seed{seed}.csv", seed=SEEDS),
        code=code_files("mental_imagery", "tables"),
    output:
        "results/mental_imagery/tables/{table}.csv",
    wildcard_constraints:
        table="|".join(MENTAL_IMAGERY_TABLES),
    log:
        "logs/mental_imagery/table_{table}.log",
    benchmark:
        "logs/mental_imagery/benchmarks/table_{table}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mental_imagery table_{wildcards.table} --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule mental_imagery_table_decoded:
    group:
        "mental_imagery_summary"
    input:
        config="results/mental_imagery/config.yaml",
        runs=expand("results/mental_imagery/runs/seed{seed}_decoded.csv", seed=SEEDS),
        code=code_files("mental_imagery", "tables"),
    output:
        "results/mental_imagery/tables/decoded.csv",
    log:
        "logs/mental_imagery/table_decoded.log",
    benchmark:
        "logs/mental_imagery/benchmarks/table_decoded.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mental_imagery table_decoded --config {input.config} --input {input.runs}"
        " --output {output} > {log} 2>&1"


rule mental_imagery_figure:
    group:
        "mental_imagery_summary"
    input:
        config="results/mental_imagery/config.yaml",
        table=lambda w: f"results/mental_imagery/tables/{MENTAL_IMAGERY_FIGURES[w.figure]}.csv",
        code=code_files("mental_imagery", "figures"),
    output:
        report(
            "results/mental_imagery/figures/{figure}.png",
            caption="../report/mental_imagery_figure.rst",
            category="mental_imagery",
            subcategory="figures",
        ),
    wildcard_constraints:
        figure="|".join(MENTAL_IMAGERY_FIGURES),
    log:
        "logs/mental_imagery/figure_{figure}.log",
    benchmark:
        "logs/mental_imagery/benchmarks/figure_{figure}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mental_imagery figure_{wildcards.figure} --config {input.config} --input {input.table}"
        " --output {output} > {log} 2>&1"


rule mental_imagery_claims:
    group:
        "mental_imagery_summary"
    input:
        config="results/mental_imagery/config.yaml",
        tables=expand("results/mental_imagery/tables/{table}.csv", table=MENTAL_IMAGERY_TABLES),
        figures=expand("results/mental_imagery/figures/{figure}.png", figure=MENTAL_IMAGERY_FIGURES),
        code=code_files("mental_imagery", "paper_claims"),
    output:
        claims="results/mental_imagery/claims.json",
        metrics="results/mental_imagery/metrics.json",
    log:
        "logs/mental_imagery/claims.log",
    benchmark:
        "logs/mental_imagery/benchmarks/claims.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m neurips26 mental_imagery claims --config {input.config} --input {input.tables}"
        " --output {output.claims} {output.metrics} > {log} 2>&1"

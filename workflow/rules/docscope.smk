# docscope: trajectory-level evaluation of long-document QA (seed abstract 14). Per seed: the generated benchmark (PDFs,
# element records, questions: a data rule whose outputs are tracked artifacts), one run of every system (trajectories +
# per-question stage scores; the OCR reader on the first documents) plus the judge-calibration set, in one job (MiniLM
# loaded once). Once: questions over the R manuals and the systems on them.
# Tables pool the seeds; figures are drawn from tables; claims are computed per seed from the run rows.
DOCSCOPE_BENCH = "results/docscope/benchmark/seed{seed}/documents.json"
# the PDFs are named outputs (so the manifest lists every one): their number is known at parse time from the scale
DOCSCOPE_DOCS = [f"doc{i:03d}.pdf" for i in range(int(scale_settings("docscope")["benchmark"]["n_docs"]))]
DOCSCOPE_TABLES = ["main", "dispersion", "oracle", "judge_kappa", "real"]
DOCSCOPE_TABLE_INPUTS = {
    "main": "runs/seed{seed}.csv",
    "dispersion": "runs/seed{seed}.csv",
    "oracle": "runs/seed{seed}.csv",
    "judge_kappa": "runs/calibration_seed{seed}.csv",
}
DOCSCOPE_FIGURES = {"stage_funnel": "main", "dispersion": "dispersion", "oracle": "oracle"}
DOCSCOPE_PRESENTATION = ["tables", "figures", "paper_claims", "stages"]

EXTRA_OUTPUTS["docscope"] = (
    expand(DOCSCOPE_BENCH, seed=SEEDS)
    + expand("results/docscope/benchmark/seed{seed}/{name}", seed=SEEDS, name=["questions.jsonl", "elements.jsonl"])
    + expand("results/docscope/runs/{name}", name=[f"seed{s}.csv" for s in SEEDS] + [f"trajectories_seed{s}.jsonl" for s in SEEDS]
             + [f"calibration_seed{s}.csv" for s in SEEDS] + ["real.csv"])
    + expand("results/docscope/benchmark/seed{seed}/docs/{doc}", seed=SEEDS, doc=DOCSCOPE_DOCS)
    + ["results/docscope/benchmark/real_questions.jsonl"]
)


rule docscope_benchmark:
    input:
        data="data/raw/docscope_bench/provenance.json",
        config="results/docscope/config.yaml",
        code=code_files("docscope", exclude=DOCSCOPE_PRESENTATION + ["experiments", "index", "reader", "scorers", "trajectory"]),
    output:
        index=DOCSCOPE_BENCH,
        questions="results/docscope/benchmark/seed{seed}/questions.jsonl",
        elements="results/docscope/benchmark/seed{seed}/elements.jsonl",
        docs=expand("results/docscope/benchmark/seed{{seed}}/docs/{doc}", doc=DOCSCOPE_DOCS),
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/docscope/benchmark_seed{seed}.log",
    benchmark:
        "logs/docscope/benchmarks/benchmark_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    shell:
        "python -m neurips26 docscope benchmark --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output.index} > {log} 2>&1"


rule docscope_run:
    input:
        bench=DOCSCOPE_BENCH,
        config="results/docscope/config.yaml",
        code=code_files("docscope", exclude=DOCSCOPE_PRESENTATION),
    output:
        rows="results/docscope/runs/seed{seed}.csv",
        trajectories="results/docscope/runs/trajectories_seed{seed}.jsonl",
        calibration="results/docscope/runs/calibration_seed{seed}.csv",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/docscope/run_seed{seed}.log",
    benchmark:
        "logs/docscope/benchmarks/run_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=40,
    shell:
        "python -m neurips26 docscope run --config {input.config} --input {input.bench} --seed {wildcards.seed}"
        " --output {output.rows} {output.trajectories} {output.calibration} --threads {threads} > {log} 2>&1"


rule docscope_real_questions:
    input:
        data="data/raw/r_doc_pdf/provenance.json",
        config="results/docscope/config.yaml",
        code=code_files("docscope", exclude=DOCSCOPE_PRESENTATION + ["experiments", "index", "reader", "scorers", "trajectory"]),
    output:
        "results/docscope/benchmark/real_questions.jsonl",
    log:
        "logs/docscope/real_questions.log",
    benchmark:
        "logs/docscope/benchmarks/real_questions.tsv"
    resources:
        mem_mb=1000,
        runtime=10,
    shell:
        "python -m neurips26 docscope real_questions --config {input.config} --input {input.data} --output {output} > {log} 2>&1"


rule docscope_run_real:
    input:
        data="data/raw/r_doc_pdf/provenance.json",
        questions="results/docscope/benchmark/real_questions.jsonl",
        config="results/docscope/config.yaml",
        code=code_files("docscope", exclude=DOCSCOPE_PRESENTATION),
    output:
        "results/docscope/runs/real.csv",
    log:
        "logs/docscope/run_real.log",
    benchmark:
        "logs/docscope/benchmarks/run_real.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    shell:
        "python -m neurips26 docscope run_real --config {input.config} --input {input.data} {input.questions}"
        " --output {output} --threads {threads} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "docscope",
    [
        *table_steps(
            "docscope",
            {
                **{
                    table: expand(f"results/docscope/{pattern}", seed=SEEDS)
                    for table, pattern in DOCSCOPE_TABLE_INPUTS.items()
                },
                "real": ["results/docscope/runs/real.csv"],
            },
        ),
        *figure_steps("docscope", DOCSCOPE_FIGURES),
        # the claims are tested per seed: they read each seed's run rows and calibration set (claims v2)
        claims_step(
            "docscope",
            expand("results/docscope/runs/seed{seed}.csv", seed=SEEDS)
            + expand("results/docscope/runs/calibration_seed{seed}.csv", seed=SEEDS),
        ),
    ],
    code=code_files("docscope", "tables", "scorers", "figures", "paper_claims"),
)

# mental_imagery: do multimodal models imagine? (seed abstract 19). One job per seed solves the puzzles once (cached);
# one job per seed and variant (A actions only, B + visual supervision, C + visual tokens) trains on them, measures the
# solve rate by replay and probes the hidden states; tables aggregate over seeds; figures from tables; claims from tables.
MENTAL_IMAGERY_DATA = ["data/raw/rush_hour_18k/provenance.json", "data/raw/dofp_lut_skimage/provenance.json"]
# solve_seeds, probe_seeds: the per-seed rows (before the mean over seeds) whose paired differences the claims read
MENTAL_IMAGERY_TABLES = ["solve", "solve_seeds", "probe", "probe_seeds", "probe_mid_seeds"]
MENTAL_IMAGERY_FIGURES = {"solve_rate_by_task": "solve", "probe_acc_vs_step": "probe", "decoded_states": "decoded"}
MENTAL_IMAGERY_PRESENTATION = ["tables", "figures", "paper_claims", "stages"]
# The variants' run jobs per seed (config run_groups): one job per variant at default scale (C costs about A + B, so
# two cores stay busy), one job for all three at tiny scale (start-up dominates there).
MENTAL_IMAGERY_GROUPS = list(scale_settings("mental_imagery")["run_groups"])
MENTAL_IMAGERY_RUNS = expand("results/mental_imagery/runs/seed{seed}_{group}.csv", seed=SEEDS, group=MENTAL_IMAGERY_GROUPS)
MENTAL_IMAGERY_DECODED = expand(
    "results/mental_imagery/runs/seed{seed}_{group}_decoded.csv", seed=SEEDS, group=MENTAL_IMAGERY_GROUPS
)

EXTRA_OUTPUTS["mental_imagery"] = MENTAL_IMAGERY_RUNS + MENTAL_IMAGERY_DECODED + [
    "results/mental_imagery/tables/decoded.csv", "results/mental_imagery/tables/solve_seeds.csv",
    "results/mental_imagery/tables/probe_seeds.csv"]


# The puzzles of a seed and its VLM pretraining (describe the start boards; the checkpoint A, B and C are fine-tuned
# from), in one job: the run jobs need both.
rule mental_imagery_puzzles:
    input:
        data=MENTAL_IMAGERY_DATA,
        config="results/mental_imagery/config.yaml",
        code=code_files("mental_imagery", "puzzles", "data", "stages", "pretrain", "model", "experiments"),
    output:
        puzzles="results/mental_imagery/puzzles/seed{seed}.npz",
        pretrain="results/mental_imagery/pretrain/seed{seed}.npz",
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/mental_imagery/puzzles_seed{seed}.log",
    benchmark:
        "logs/mental_imagery/benchmarks/puzzles_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    shell:
        "python -m neurips26 mental_imagery puzzles --config {input.config} --input {input.data} --seed {wildcards.seed}"
        " --output {output.puzzles} {output.pretrain} --threads {threads} > {log} 2>&1"


rule mental_imagery_run:
    input:
        puzzles="results/mental_imagery/puzzles/seed{seed}.npz",
        pretrain="results/mental_imagery/pretrain/seed{seed}.npz",
        config="results/mental_imagery/config.yaml",
        code=code_files("mental_imagery", exclude=MENTAL_IMAGERY_PRESENTATION),
    output:
        run="results/mental_imagery/runs/seed{seed}_{group}.csv",
        decoded="results/mental_imagery/runs/seed{seed}_{group}_decoded.csv",
    wildcard_constraints:
        seed=r"\d+",
        group="|".join(MENTAL_IMAGERY_GROUPS),
    params:
        variants=lambda wildcards: ",".join(wildcards.group),
    log:
        "logs/mental_imagery/run_seed{seed}_{group}.log",
    benchmark:
        "logs/mental_imagery/benchmarks/run_seed{seed}_{group}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 mental_imagery run --config {input.config} --input {input.puzzles} {input.pretrain}"
        " --seed {wildcards.seed}"
        " --output {output.run} {output.decoded} --threads {threads} 'variants=[{params.variants}]' > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "mental_imagery",
    [
        *table_steps(
            "mental_imagery",
            {
                **{table: MENTAL_IMAGERY_RUNS for table in MENTAL_IMAGERY_TABLES},
                "decoded": MENTAL_IMAGERY_DECODED,
            },
        ),
        *figure_steps("mental_imagery", MENTAL_IMAGERY_FIGURES),
        claims_step("mental_imagery", expand("results/mental_imagery/tables/{table}.csv", table=MENTAL_IMAGERY_TABLES)),
    ],
    code=code_files("mental_imagery", "tables", "figures", "paper_claims"),
)

# cytometry_encoder: a frozen pretrained encoder for clinical flow cytometry (seed abstract 11).
# data -> FCS files (the synthetic universe, one world per seed, or the fetched real studies) -> one AnnData per study
# (ingest, per seed: runs/anndata/seed<N>) -> frozen
# marker-name vectors (MiniLM, once) -> pretraining jobs, one per sweep point (capacity and corpus sweeps share the base
# point; 'hashed' is the name-vector ablation) -> test-time marker removal + the negative control's permutation null ->
# specialists -> baselines -> tables over seeds -> figures -> claims. Beside it: fcsparser's 13 readable real instrument
# files -> the same ingest -> AnnData -> the frozen base encoder (runs/real_embeddings.npz).
# Every seed has its own world (issue 51: the universe and the cells kept per sample are drawn from the run seed): the
# universe and ingest jobs run once per seed; the experiment jobs read seed N's world from runs/anndata/seed<N>.
# Jobs fan out over sweep points and loop over the seeds (and the specialists over the tasks) inside: each job pays
# ~3 s of imports (torch, the data) once, which keeps the tiny scale (~20 jobs) inside its 40 s on 2 cores; at default
# the specialists are split into `jobs.specialist_groups` jobs (a third of the tasks each at default, one job at tiny) so
# that no job holds a third of the paper's CPU time and 2 cores stay busy to the end.
# The sweep points depend on the scale: read from the paper's Hydra tree at parse time (names as in experiments.variants).
CYTO_SCALE = scale_settings("cytometry_encoder")
CYTO_VARIANTS = ["base"]
CYTO_VARIANTS += [f"width{int(w)}" for w in CYTO_SCALE.sweeps.capacity if int(w) != int(CYTO_SCALE.model.width)]
CYTO_VARIANTS += [f"corpus{float(f):g}" for f in CYTO_SCALE.sweeps.corpus if float(f) != 1.0]
CYTO_VARIANTS += ["hashed"] if str(CYTO_SCALE.model.names) != "hashed" and CYTO_SCALE.sweeps.get("hashed_ablation", True) else []
CYTO = "results/cytometry_encoder"
CYTO_SPECIALISTS = [f"{CYTO}/runs/specialists/{g}.csv" for g in range(int(CYTO_SCALE.jobs.specialist_groups))]
CYTO_TASK_RUNS = [f"{CYTO}/runs/pretrain/base.csv", *CYTO_SPECIALISTS, f"{CYTO}/runs/baselines.csv"] + (
    [f"{CYTO}/runs/pretrain/hashed.csv"] if "hashed" in CYTO_VARIANTS else [])
CYTO_SWEEP_RUNS = expand(f"{CYTO}/runs/pretrain/{{variant}}.csv", variant=CYTO_VARIANTS)
CYTO_ANNDATA = expand(f"{CYTO}/runs/anndata/seed{{seed}}", seed=SEEDS)
CYTO_TABLE_INPUTS = {
    "tasks": CYTO_TASK_RUNS,
    "scaling": CYTO_SWEEP_RUNS,
    # the per-seed rows of tasks and scaling: claims 1 and 3 read seed intervals (JOURNAL: fifth change)
    "tasks_seeds": CYTO_TASK_RUNS,
    "scaling_seeds": CYTO_SWEEP_RUNS,
    "removal": [f"{CYTO}/runs/removal.csv"],
    "removal_seeds": [f"{CYTO}/runs/removal.csv"],  # the per-seed median drops the marker-removal claim reads
    "panels": expand(f"{CYTO}/runs/studies/seed{{seed}}.csv", seed=SEEDS),
    "control_null": [f"{CYTO}/runs/control_null.csv"],
    "pretrain_loss": expand(f"{CYTO}/runs/pretrain/{{variant}}_loss.csv", variant=CYTO_VARIANTS),
}
CYTO_FIGURES = {"task_auroc": "tasks", "scaling_capacity": "scaling", "scaling_corpus": "scaling",
                "marker_removal": "removal", "umap_embeddings": "umap", "control_null": "control_null",
                "pretrain_loss": "pretrain_loss"}
# the claims stage's inputs, in stages.CLAIM_TABLES' order
CYTO_CLAIM_TABLES = ["tasks", "tasks_seeds", "scaling_seeds", "removal", "removal_seeds", "control_null", "pretrain_loss"]

EXTRA_OUTPUTS["cytometry_encoder"] = sorted({p for paths in CYTO_TABLE_INPUTS.values() for p in paths}) + [
    f"{CYTO}/tables/scaling.csv", f"{CYTO}/tables/removal.csv", f"{CYTO}/tables/umap.csv",
    f"{CYTO}/tables/control_null.csv", f"{CYTO}/tables/pretrain_loss.csv", f"{CYTO}/tables/tasks_seeds.csv",
    f"{CYTO}/tables/scaling_seeds.csv", f"{CYTO}/tables/removal_seeds.csv", f"{CYTO}/runs/marker_vectors.npz",
    f"{CYTO}/runs/real_files.csv", f"{CYTO}/runs/real_embeddings.npz"]


# The ingest's sources: the fetched real studies (data: real) or the generated universe of the seed (embedded).
CYTO_REAL_SOURCES = {"manifest": "data/manifests/cytometry_studies.yaml", "fetched": "data/raw/cytometry/provenance.json"}


rule cytometry_encoder_universe:
    input:
        config=f"{CYTO}/config.yaml",
        code=code_files("cytometry_encoder", "universe", "fcs", "manifest", "markers"),
    output:
        directory(f"{CYTO}/runs/universe/seed{{seed}}"),
    wildcard_constraints:
        seed=r"\d+",
    log:
        "logs/cytometry_encoder/universe_seed{seed}.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/universe_seed{seed}.tsv"
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 cytometry_encoder universe --config {input.config} --seed {wildcards.seed}"
        " --output {output} > {log} 2>&1"


rule cytometry_encoder_ingest:
    input:
        unpack(lambda w: CYTO_REAL_SOURCES if config["data"] == "real"
               else {"universe": f"{CYTO}/runs/universe/seed{w.seed}"}),
        config=f"{CYTO}/config.yaml",
        code=code_files("cytometry_encoder", "ingest", "fcs", "manifest", "markers"),
    output:
        anndata=directory(f"{CYTO}/runs/anndata/seed{{seed}}"),
        studies=f"{CYTO}/runs/studies/seed{{seed}}.csv",
    wildcard_constraints:
        seed=r"\d+",
    params:
        sources=lambda w, input: (f"{input.manifest} data/raw/cytometry" if config["data"] == "real"
                                  else f"{input.universe}/manifest.yaml {input.universe}/fcs"),
    log:
        "logs/cytometry_encoder/ingest_seed{seed}.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/ingest_seed{seed}.tsv"
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "python -m neurips26 cytometry_encoder ingest --config {input.config} --seed {wildcards.seed}"
        " --input {params.sources}"
        " --output {output.anndata} {output.studies} > {log} 2>&1"


rule cytometry_encoder_real_ingest:
    input:
        config=f"{CYTO}/config.yaml",
        code=code_files("cytometry_encoder", "real_fcs", "ingest", "fcs", "manifest", "markers"),
    output:
        anndata=directory(f"{CYTO}/runs/real_anndata"),
        files=f"{CYTO}/runs/real_files.csv",
    log:
        "logs/cytometry_encoder/real_ingest.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/real_ingest.tsv"
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 cytometry_encoder real_ingest --config {input.config}"
        " --output {output.anndata} {output.files} > {log} 2>&1"


rule cytometry_encoder_marker_vectors:
    input:
        config=f"{CYTO}/config.yaml",
        anndata=CYTO_ANNDATA,
        real=f"{CYTO}/runs/real_anndata",
        code=code_files("cytometry_encoder", "marker_vectors", "markers"),
    output:
        f"{CYTO}/runs/marker_vectors.npz",
    log:
        "logs/cytometry_encoder/marker_vectors.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/marker_vectors.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m neurips26 cytometry_encoder marker_vectors --config {input.config} --input {input.anndata}"
        " {input.real} --output {output} > {log} 2>&1"


rule cytometry_encoder_pretrain:
    input:
        config=f"{CYTO}/config.yaml",
        anndata=CYTO_ANNDATA,
        vectors=f"{CYTO}/runs/marker_vectors.npz",
        code=code_files("cytometry_encoder", "corpus", "model", "pretrain", "probe", "experiments", "markers",
                        "marker_vectors"),
    output:
        run=f"{CYTO}/runs/pretrain/{{variant}}.csv",
        models=f"{CYTO}/runs/pretrain/{{variant}}.pt",
        loss=f"{CYTO}/runs/pretrain/{{variant}}_loss.csv",
    wildcard_constraints:
        variant="|".join(CYTO_VARIANTS),
    # the base encoder first: removal -> umap -> summary wait on it (run last by chance, that chain was a ~90 s serial tail)
    priority: lambda wildcards: 1 if wildcards.variant == "base" else 0
    params:
        anndata=lambda w, input: input.anndata[0].rsplit("/", 1)[0],  # the root of the seeds' worlds (seed<N>/)
    log:
        "logs/cytometry_encoder/run_pretrain_{variant}.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/pretrain_{variant}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 cytometry_encoder pretrain variant={wildcards.variant} --config {input.config}"
        " --input {params.anndata} {input.vectors} --output {output.run} {output.models} {output.loss}"
        " --threads {threads} > {log} 2>&1"


rule cytometry_encoder_removal:
    input:
        config=f"{CYTO}/config.yaml",
        anndata=CYTO_ANNDATA,
        vectors=f"{CYTO}/runs/marker_vectors.npz",
        models=f"{CYTO}/runs/pretrain/base.pt",
        real=f"{CYTO}/runs/real_anndata",
        code=code_files("cytometry_encoder", "corpus", "model", "pretrain", "probe", "experiments", "markers",
                        "marker_vectors", "baselines"),
    output:
        run=f"{CYTO}/runs/removal.csv",
        embeddings=f"{CYTO}/runs/embeddings.npz",
        null=f"{CYTO}/runs/control_null.csv",
        real=f"{CYTO}/runs/real_embeddings.npz",
    priority: 1
    params:
        anndata=lambda w, input: input.anndata[0].rsplit("/", 1)[0],  # the root of the seeds' worlds (seed<N>/)
    log:
        "logs/cytometry_encoder/run_removal.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/removal.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 cytometry_encoder removal --config {input.config}"
        " --input {params.anndata} {input.vectors} {input.models} {input.real}"
        " --output {output.run} {output.embeddings} {output.null} {output.real}"
        " --threads {threads} > {log} 2>&1"


rule cytometry_encoder_specialists:
    input:
        config=f"{CYTO}/config.yaml",
        anndata=CYTO_ANNDATA,
        vectors=f"{CYTO}/runs/marker_vectors.npz",
        code=code_files("cytometry_encoder", "corpus", "model", "pretrain", "probe", "experiments", "markers",
                        "marker_vectors"),
    output:
        f"{CYTO}/runs/specialists/{{group}}.csv",
    wildcard_constraints:
        group=r"\d+",
    # the longest jobs (~140 s each) start first and the shorter sweep points fill in around them: started last (by
    # chance), one specialist job ran alone for the run's last ~145 s (a quiet default run took 661 s for 965 s of CPU)
    priority: 1
    params:
        anndata=lambda w, input: input.anndata[0].rsplit("/", 1)[0],  # the root of the seeds' worlds (seed<N>/)
    log:
        "logs/cytometry_encoder/run_specialists_{group}.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/specialists_{group}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    shell:
        "python -m neurips26 cytometry_encoder specialists specialist_group={wildcards.group} --config {input.config}"
        " --input {params.anndata} {input.vectors} --output {output} --threads {threads} > {log} 2>&1"


rule cytometry_encoder_baselines:
    input:
        # embedded data: every seed's world's true population frequencies (the frequency ceiling of every task)
        unpack(lambda w: {} if config["data"] == "real"
               else {"universe": expand(f"{CYTO}/runs/universe/seed{{seed}}", seed=SEEDS)}),
        config=f"{CYTO}/config.yaml",
        anndata=CYTO_ANNDATA,
        vectors=f"{CYTO}/runs/marker_vectors.npz",
        code=code_files("cytometry_encoder", "corpus", "model", "pretrain", "probe", "experiments", "baselines",
                        "markers", "marker_vectors", "universe"),
    output:
        f"{CYTO}/runs/baselines.csv",
    params:
        anndata=lambda w, input: input.anndata[0].rsplit("/", 1)[0],  # the root of the seeds' worlds (seed<N>/)
        truth=lambda w, input: "" if config["data"] == "real" else f" {input.universe[0].rsplit('/', 1)[0]}",
    log:
        "logs/cytometry_encoder/run_baselines.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/baselines.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "python -m neurips26 cytometry_encoder baselines --config {input.config}"
        " --input {params.anndata} {input.vectors}{params.truth} --output {output} --threads {threads} > {log} 2>&1"


rule cytometry_encoder_umap:
    input:
        config=f"{CYTO}/config.yaml",
        embeddings=f"{CYTO}/runs/embeddings.npz",
        code=code_files("cytometry_encoder", "embedding_map"),
    output:
        f"{CYTO}/tables/umap.csv",
    priority: 1
    log:
        "logs/cytometry_encoder/umap.log",
    benchmark:
        "logs/cytometry_encoder/benchmarks/umap.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=10,
    shell:
        "python -m neurips26 cytometry_encoder umap --config {input.config} --input {input.embeddings}"
        " --output {output} --threads {threads} > {log} 2>&1"


# The summary job (tables, figures, claims): the one template of workflow/rules/summary.smk.
paper_summary(
    "cytometry_encoder",
    [
        *table_steps("cytometry_encoder", CYTO_TABLE_INPUTS),
        *figure_steps("cytometry_encoder", CYTO_FIGURES),
        claims_step("cytometry_encoder", expand(f"{CYTO}/tables/{{table}}.csv", table=CYTO_CLAIM_TABLES)),
    ],
    code=code_files("cytometry_encoder", "tables", "figures", "paper_claims"),
)

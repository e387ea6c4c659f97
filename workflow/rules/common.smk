# Helpers only: the validated config, the paper registry, per-paper targets and shared input functions.
import hashlib
import json
import os
import sys
from functools import cache
from pathlib import Path

from snakemake.exceptions import WorkflowError

from neurips26.common.pipeline.artifacts import write_text
from neurips26.common.pipeline.code_deps import code_closure, imported_names
from neurips26.common.pipeline.code_stamp import code_stamp, file_sha256
from neurips26.common.pipeline.config import coerce_command_line, scale_config, validate_run_config
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import load_papers, selected_papers
from neurips26.robustness.seed_sets import seed_sets, set_name

# Jobs call `python`: put the interpreter that runs Snakemake first on PATH, so that an un-activated
# .venv/bin/snakemake (or a cluster job, which re-reads this file) still runs the project's own environment.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

try:
    coerce_command_line(config)
    validate_run_config(config, source="config (config/config.yaml + --config)")
    PAPERS = selected_papers(config["papers"])
except UserError as error:
    raise WorkflowError(str(error)) from None

PAPER_IDS = [paper.id for paper in PAPERS]
IMPLEMENTED_IDS = [paper.id for paper in load_papers() if paper.implemented]
SEEDS = [int(seed) for seed in config["seeds"]]

# Files of results/<paper_id>/ beyond the promised figures and tables (run outputs), registered by each paper's rule file,
# so the manifest lists every artifact a paper writes.
EXTRA_OUTPUTS = {}


def paper_overrides():
    """The run config, as Hydra overrides for the paper's config stage (a change re-runs it, and everything downstream)."""
    seeds = ",".join(str(seed) for seed in SEEDS)
    return f"scale={config['scale']} data={config['data']} device={config['device']} 'seeds=[{seeds}]'"


def scale_settings(paper_id):
    """The paper's Hydra config at the run's scale, composed at parse time: a grid that decides which jobs exist must be
    known before any rule runs (the stages read the same values from the resolved config). Plain YAML merges, not a
    Hydra compose, to keep parse time small."""
    return scale_config(paper_id, config["scale"])


def hydra_files(paper_id):
    return sorted(str(p) for p in Path("config", paper_id).rglob("*.yaml"))


# Each source file is hashed and scanned once per parse: the rules' code inputs share most of common/. (A memo kept across
# parses saved 0.05 s [-0.24, 0.33] of a 2.9 s dry run, benchmarks/bench_mechanisms.py, and was removed.)
IMPORTS_OF = cache(imported_names)
SHA256_OF = cache(file_sha256)


def code_files(paper_id, *modules, exclude=()):
    """A rule's code input: the stamp (common/pipeline/code_stamp.py) of the source files it runs, namely the named modules of the
    paper (else all but `exclude`) and each module of the package they import (common/pipeline/code_deps.py), so that editing the
    method re-runs the experiments while restyling a figure re-runs only the figure, and editing one module of common/
    re-runs only the jobs that import it. One stamp file instead of the files themselves: the dry run pays per input."""
    package = sorted(Path("src/neurips26/papers", paper_id).glob("*.py"))
    chosen = [p for p in package if (p.stem in modules if modules else p.stem not in exclude)]
    return [code_stamp(code_closure(chosen, names=IMPORTS_OF), sha256=SHA256_OF)]


def paper_artifacts(paper_id):
    """Every file a paper's results folder holds once complete: promised figures and tables, claims, metrics, config."""
    paper = next(p for p in PAPERS if p.id == paper_id)
    base = Path("results", paper_id)
    fixed = ["config.yaml", "claims.json", "metrics.json", *paper.artifacts]
    return [str(base / f) for f in fixed] + EXTRA_OUTPUTS.get(paper_id, [])


_OUTPUT_INDEX = []


def producing_rule(path):
    """The name of the first rule whose output pattern matches `path` (for the manifest). Snakemake's own output index
    narrows the candidates by constant prefix and suffix (every producer passes it), so that each path is matched against
    a few rules rather than all of them."""
    if not _OUTPUT_INDEX:
        from snakemake.output_index import OutputIndex

        _OUTPUT_INDEX.append(OutputIndex(list(workflow.rules)))
    candidates = _OUTPUT_INDEX[0].match(path)
    for candidate in workflow.rules:
        if candidate in candidates and candidate.is_producer(path):
            return candidate.name
    return "unknown"


def report_inputs():
    """Every artifact of every selected paper: results/all is built from (and lists) exactly these."""
    return [path for paper_id in PAPER_IDS for path in paper_artifacts(paper_id)]


def artifact_producers(paths):
    """For the report: a JSON file, artifact path -> the rule that wrote it, under .snakemake/neurips26/report/ and named
    by its content (a new producer gives a new path, so the report reruns on the params trigger). A file, not a command
    line argument: at paper scale with ten seeds the map is ~160 KB, and Linux refuses any single argument over 128 KB
    (MAX_ARG_STRLEN), which the command that `bash -c` runs is."""
    text = json.dumps({path: producing_rule(path) for path in paths}, indent=0, sort_keys=True)
    path = Path(".snakemake/neurips26/report") / f"producers-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    if not path.exists():
        write_text(path, text)
    return str(path)


def stage_steps(paper_id, steps):
    """The arguments of one `python -m neurips26 <paper_id> ...` call that runs several stages in order in one process
    (`::` between them, see neurips26/cli.py), each with the paper's resolved config: `steps` is a list of (stage,
    inputs, outputs). A paper's summary job uses it, so its tables, figures and claims (seconds each, mostly start-up)
    pay the interpreter's and the libraries' start-up once; each step still reads only saved files."""
    config_path = f"results/{paper_id}/config.yaml"
    return " :: ".join(
        " ".join([stage, "--config", config_path, "--input", *inputs, "--output", *outputs])
        for stage, inputs, outputs in steps
    )


# paper id -> its summary job's steps and files, registered by paper_summary() and made a rule by summary.smk
SUMMARIES = {}


def paper_summary(paper_id, steps, code, captions=None, mem_mb=1000, runtime=15):
    """Registers the paper's summary job: `steps` (stage, inputs, outputs) as for stage_steps, `code` its code input.
    Outputs are the steps' outputs: figures (.png) go into the report with the shared caption, or with their own caption
    from `captions` (output path -> caption file); claims.json and metrics.json are the claims step's; everything else is
    a table. Inputs are the files the steps read that no step writes."""
    written = [path for _, _, outputs in steps for path in outputs]
    reads = list(dict.fromkeys(path for _, inputs, _ in steps for path in inputs if path not in written))
    own = {"claims.json", "metrics.json"}
    captions = captions or {}
    SUMMARIES[paper_id] = {
        "steps": steps,
        "code": code,
        "reads": reads,
        "figures": [p for p in written if p.endswith(".png") and p not in captions],
        "captioned": {
            Path(path).stem: report(path, caption=caption, category=paper_id, subcategory="figures")
            for path, caption in captions.items()
        },
        "tables": [p for p in written if not p.endswith(".png") and Path(p).name not in own],
        "mem_mb": mem_mb,
        "runtime": runtime,
    }


def table_steps(paper_id, inputs_by_table):
    """Summary steps `table_<name>`: {table name: its input files} -> results/<paper_id>/tables/<name>.csv."""
    return [(f"table_{name}", list(inputs), [f"results/{paper_id}/tables/{name}.csv"]) for name, inputs in inputs_by_table.items()]


def figure_steps(paper_id, table_by_figure):
    """Summary steps `figure_<name>`: {figure name: the table it is drawn from} -> results/<paper_id>/figures/<name>.png."""
    return [
        (f"figure_{name}", [f"results/{paper_id}/tables/{table}.csv"], [f"results/{paper_id}/figures/{name}.png"])
        for name, table in table_by_figure.items()
    ]


def claims_step(paper_id, inputs):
    """The last summary step: claims.json and metrics.json from the given tables."""
    return ("claims", list(inputs), [f"results/{paper_id}/claims.json", f"results/{paper_id}/metrics.json"])


# The robustness seed sets (workflow/rules/robustness.smk, docs/robustness.md): refused when one meets a configured seed.
try:
    ROBUSTNESS_SPEC = config.get("robustness", {"sets": 3, "size": 3, "first_seed": 100})
    ROBUSTNESS_SETS = [set_name(block) for block in seed_sets(ROBUSTNESS_SPEC, SEEDS)]
except UserError as error:
    raise WorkflowError(str(error)) from None


def robustness_threads():
    """A set job's share of --cores (the sets run side by side); 4 where no total is given (a cluster run, --unlock):
    override with --set-threads robustness_set=N."""
    try:
        return max(1, workflow.cores // max(1, len(ROBUSTNESS_SETS)))
    except WorkflowError:
        return 4

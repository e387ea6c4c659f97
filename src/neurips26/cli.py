"""`python -m neurips26 <paper_id> <stage> [options] [hydra overrides]`, plus the project-level commands.

    python -m neurips26 mec_mmd config --output results/mec_mmd/config.yaml scale=tiny
    python -m neurips26 mec_mmd run_bias --config results/mec_mmd/config.yaml --seed 0 --output runs/bias/seed0.csv
    python -m neurips26 mec_mmd run_bias --seed 0 --output /tmp/bias.csv scale=tiny bias.replicates=50
    python -m neurips26 mec_mmd table_main --config C --input R0 R1 --output T :: figure_bias_vs_noise --config C \
        --input T --output F                 # several stages, in order, in one process (a paper's summary job)
    python -m neurips26 report --output results/all --inputs ...
    python -m neurips26 data <dataset_id> --mode embedded|real
    python -m neurips26 lock-data <dataset_id> ...   # download again and re-pin in data/sources.lock (docs/data.md#pins)
    python -m neurips26 dvc-yaml [--check]
    python -m neurips26 dvc-pulled           # after `dvc pull`: check `dvc status`, then one mtime for the outputs
    python -m neurips26 dvc-plots-offline [FOLDER]   # the page of `dvc plots show` without the CDN scripts
    python -m neurips26 verdicts readme|write|check [PAPER ...]   # README claims tables, expected verdicts
    python -m neurips26 new-paper ID [--title TITLE]   # a planned paper's skeleton (docs/adding-a-paper.md)
    python -m neurips26 robustness set|aggregate ...     # a paper on one more seed set; robustness.json (docs/robustness.md)
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

from neurips26.common.pipeline.errors import UserError
from neurips26.project_commands import PROJECT_COMMANDS

# A Hydra override: key=value, +key=value, ~key (keys are dotted identifiers; paths never match because of their '/').
OVERRIDE = re.compile(r"^[+~]{0,2}[A-Za-z_][\w.]*(=|$)")


def _paper_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m neurips26 <paper_id>", description="Run one stage of a paper.")
    parser.add_argument("stage", help="a stage of the paper (see --list)")
    parser.add_argument("--config", type=Path, help="a resolved config written by the config stage")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--input", dest="inputs", type=Path, nargs="*", default=[])
    parser.add_argument("--output", dest="outputs", type=Path, nargs="*", default=[])
    parser.add_argument("--threads", type=int, default=1)
    return parser


def split_overrides(argv: list[str]) -> tuple[list[str], list[str]]:
    """Separate Hydra overrides (anywhere on the line) from options, so `--output a.csv scale=tiny` reads as meant."""
    overrides = [a for a in argv[1:] if "=" in a and OVERRIDE.match(a) and not a.startswith("-")]
    return [a for a in argv if a not in overrides], overrides


# Separates the stages of one call: `python -m neurips26 <paper_id> STAGE ARGS :: STAGE ARGS ...` runs them in order in one
# process, so that a paper's tables, figures and claims (seconds each, mostly interpreter and library start-up) are one job.
STEP_SEPARATOR = "::"


def split_steps(argv: list[str]) -> list[list[str]]:
    steps: list[list[str]] = [[]]
    for arg in argv:
        if arg == STEP_SEPARATOR:
            steps.append([])
        else:
            steps[-1].append(arg)
    if any(not step for step in steps):
        raise UserError(f"empty stage around {STEP_SEPARATOR!r}: give STAGE [options] between separators")
    return steps


def run_paper_stage(paper_id: str, argv: list[str]) -> None:
    from neurips26.common.pipeline.registry import get_paper

    paper = get_paper(paper_id)
    if not paper.implemented:
        raise UserError(f"paper {paper_id!r} is planned, not implemented: it has no stages yet")
    stages = importlib.import_module(f"neurips26.papers.{paper_id}.stages").STAGES
    steps = [_paper_parser_args(step) for step in split_steps(argv)]
    for args in steps:  # every stage name is checked before any stage runs
        if args.stage not in ("config", *stages):
            known = ", ".join(["config", *stages])
            raise UserError(f"unknown stage {args.stage!r} for paper {paper_id!r}; known stages: {known}")
    for args in steps:
        run_one_stage(paper_id, stages, args)


def _paper_parser_args(argv: list[str]) -> argparse.Namespace:
    options, overrides = split_overrides(argv)
    args = _paper_parser().parse_args(options)
    args.overrides = overrides
    return args


def run_one_stage(paper_id: str, stages: dict, args: argparse.Namespace) -> None:
    from neurips26.common.pipeline import config as configuration
    from neurips26.common.pipeline.seeding import set_threads
    from neurips26.common.pipeline.stage import StageContext

    set_threads(args.threads)
    if args.config:
        cfg = configuration.load_resolved(args.config, args.overrides)
    else:
        cfg = configuration.compose(paper_id, args.overrides)
    if args.stage == "config":
        from neurips26.common.pipeline.artifacts import write_text

        if len(args.outputs) != 1:
            raise UserError("the config stage writes one file: give --output PATH")
        write_text(args.outputs[0], configuration.to_yaml(cfg))
        return
    ctx = StageContext(paper_id, cfg, list(args.inputs), list(args.outputs), args.seed, args.threads)
    stages[args.stage](ctx)


# Each project command's entry point, `module:function` taking the remaining arguments; imported only when run, so a
# stage job never pays for the report's or DVC's imports.
ENTRY_POINTS = {
    "report": "neurips26.report.build:main",
    "data": "neurips26.cli:prepare_dataset",
    "lock-data": "neurips26.cli:lock_data",
    "dvc-yaml": "neurips26.dvc_yaml:main",
    "dvc-pulled": "neurips26.dvc_pulled:main",
    "dvc-plots-offline": "neurips26.dvc_plots_offline:main",
    "verdicts": "neurips26.report.verdicts:main",
    "new-paper": "neurips26.scaffold:main",
    "robustness": "neurips26.cli:run_robustness",
    "papers": "neurips26.cli:print_papers",
}


def run_project_command(command: str, argv: list[str]) -> None:
    module, function = ENTRY_POINTS[command].split(":")
    getattr(importlib.import_module(module), function)(argv)


def prepare_dataset(argv: list[str]) -> None:
    from neurips26.common.data.datasets import get_dataset, prepare
    from neurips26.common.pipeline.registry import repo_root

    parser = argparse.ArgumentParser(prog="python -m neurips26 data")
    parser.add_argument("dataset")
    parser.add_argument("--mode", choices=("embedded", "real"), default="embedded")
    args = parser.parse_args(argv)
    print(prepare(get_dataset(args.dataset), args.mode, repo_root()))


def print_papers(argv: list[str]) -> None:
    from neurips26.common.pipeline.registry import papers_markdown

    print(papers_markdown(), end="")


def run_robustness(argv: list[str]) -> None:
    if not argv or argv[0] not in ("set", "aggregate"):
        raise UserError("robustness: give `set` (one paper on one seed set) or `aggregate` (its robustness.json)")
    if argv[0] == "set":
        from neurips26.robustness.run_set import main as set_main

        set_main(argv[1:])
    else:
        from neurips26.robustness.aggregate import main as aggregate_main

        aggregate_main(argv[1:])


def lock_data(argv: list[str]) -> None:
    """Re-pin deliberately: download each named dataset's real files that config/datasets.yaml gives no sha256 for, and
    replace their pins in data/sources.lock (git diff shows what changed)."""
    from neurips26.common.data.datasets import fetch_real, get_dataset
    from neurips26.common.pipeline.registry import repo_root

    parser = argparse.ArgumentParser(prog="python -m neurips26 lock-data")
    parser.add_argument("datasets", nargs="+", metavar="dataset")
    args = parser.parse_args(argv)
    datasets = [get_dataset(d) for d in args.datasets]  # every id is checked before anything downloads
    for dataset in datasets:
        fetch_real(dataset, repo_root(), refresh=True)
        print(f"{dataset.id}: pinned in data/sources.lock")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    target, rest = argv[0], argv[1:]
    try:
        if target in PROJECT_COMMANDS:
            run_project_command(target, rest)
        else:
            run_paper_stage(target, rest)
    except UserError as exc:
        print(f"neurips26: error: {exc}", file=sys.stderr)
        return 2
    return 0

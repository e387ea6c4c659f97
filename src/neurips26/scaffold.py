"""`python -m neurips26 new-paper <id> [--title TITLE]`: the skeleton of a new, planned paper (docs/adding-a-paper.md).

It writes the registry entry (status `planned`, so nothing builds it yet) and the README's paper table, the claims file
with a placeholder, the config tree (`[_self_, scale: default]`), the rule file (its figures use the shared caption
workflow/report/paper_figure.rst), and the package: stages wired the way the rules call them, each raising
NotImplementedError that names the file to edit (never a fake result), a README in mec_mmd's shape with an empty claims
block and a dated JOURNAL. The templates are the text files of neurips26/scaffold_templates/. An invalid or taken id is
refused before anything is written; if a write fails, what was written is removed and the edited files are restored.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
from datetime import UTC, datetime
from pathlib import Path
from string import Template

import yaml

from neurips26.common.pipeline.artifacts import write_text
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.marked_block import with_block
from neurips26.common.pipeline.registry import Paper, papers_markdown, repo_root
from neurips26.project_commands import PROJECT_COMMANDS

# The id rule of workflow/schemas/config.schema.json (and claims.schema.json): it names the rule file, the package, the
# config folder, the claims file, the results, logs and DVC stage (docs/architecture.md, "CONTRACT: paper ids").
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_ID_LENGTH = 40  # the scaffold's own limit; the longest id of the batch has 17
# `python -m neurips26 <id>` would run a project command instead of the paper; results/all is the results page.
RESERVED_IDS = (*(command for command in PROJECT_COMMANDS if ID_PATTERN.fullmatch(command)), "all")

TEMPLATE_DIR = Path(__file__).parent / "scaffold_templates"
# template file -> where it goes, relative to the repository ({id}: the paper id)
TEMPLATES = {
    "config.yaml.tmpl": "config/{id}/config.yaml",
    "scale_tiny.yaml.tmpl": "config/{id}/scale/tiny.yaml",
    "scale_default.yaml.tmpl": "config/{id}/scale/default.yaml",
    "scale_long.yaml.tmpl": "config/{id}/scale/long.yaml",
    "scale_paper.yaml.tmpl": "config/{id}/scale/paper.yaml",
    "claims.yaml.tmpl": "config/claims/{id}.yaml",
    "rules.smk.tmpl": "workflow/rules/{id}.smk",
    "package_init.py.tmpl": "src/neurips26/papers/{id}/__init__.py",
    "stages.py.tmpl": "src/neurips26/papers/{id}/stages.py",
    "experiments.py.tmpl": "src/neurips26/papers/{id}/experiments.py",
    "tables.py.tmpl": "src/neurips26/papers/{id}/tables.py",
    "figures.py.tmpl": "src/neurips26/papers/{id}/figures.py",
    "paper_claims.py.tmpl": "src/neurips26/papers/{id}/paper_claims.py",
    "README.md.tmpl": "src/neurips26/papers/{id}/README.md",
    "JOURNAL.md.tmpl": "src/neurips26/papers/{id}/JOURNAL.md",
}
# folders that are the paper's alone: any of them existing means the id is taken (or half-scaffolded)
OWN_FOLDERS = ("config/{id}", "src/neurips26/papers/{id}")
REGISTRY = "config/papers.yaml"
README = "README.md"
PAPERS_BEGIN, PAPERS_END = "<!-- papers:begin -->\n", "<!-- papers:end -->"  # the block test_readme.py reads


def check_id(paper_id: str) -> None:
    """The id's form alone (what any repository would refuse); check_free adds what this repository already has."""
    if not ID_PATTERN.fullmatch(paper_id):
        raise UserError(f"invalid paper id {paper_id!r}: lower case letters, digits and _, starting with a letter "
                        f"({ID_PATTERN.pattern}, the rule of workflow/schemas/config.schema.json)")
    if len(paper_id) > MAX_ID_LENGTH:
        raise UserError(f"invalid paper id {paper_id!r}: at most {MAX_ID_LENGTH} characters (it names every file, rule and "
                        "folder of the paper, and the generated lines must stay within the line limit)")
    if keyword.iskeyword(paper_id):
        raise UserError(f"invalid paper id {paper_id!r}: a Python keyword cannot name the package neurips26.papers.<id>")
    if paper_id in RESERVED_IDS:
        raise UserError(f"invalid paper id {paper_id!r}: reserved ({', '.join(RESERVED_IDS)} are project commands of "
                        "`python -m neurips26` or results/all)")


def target_paths(paper_id: str) -> list[str]:
    return [dest.format(id=paper_id) for dest in TEMPLATES.values()]


def check_free(paper_id: str, root: Path, registered: list[str]) -> None:
    if paper_id in registered:
        raise UserError(f"paper id {paper_id!r} is taken: config/papers.yaml already lists it")
    taken = [p for p in [*target_paths(paper_id), *(f.format(id=paper_id) for f in OWN_FOLDERS)] if (root / p).exists()]
    if taken:
        raise UserError(f"paper id {paper_id!r} is taken: {', '.join(taken)} already exist(s); nothing was written")


def render(paper_id: str, title: str, seed_index: int, date: str) -> dict[str, str]:
    """Repository-relative path -> the text of each new file."""
    values = {"id": paper_id, "ID": paper_id.upper(), "title": title, "title_yaml": json.dumps(title),
              "seed_index": seed_index, "date": date}
    return {dest.format(id=paper_id): Template((TEMPLATE_DIR / name).read_text()).substitute(values)
            for name, dest in TEMPLATES.items()}


def registry_with(text: str, entry: str) -> str:
    """config/papers.yaml's text with the entry appended to its `papers:` list (comments and layout kept)."""
    return text + ("" if text.endswith("\n") else "\n") + entry


def readme_with(text: str, table: str) -> str:
    return with_block(text, PAPERS_BEGIN, PAPERS_END, table, README)


def scaffold(paper_id: str, title: str | None = None, root: Path | None = None, date: str | None = None) -> list[str]:
    """Write the new paper's files; returns their repository-relative paths (the edited registry and README last)."""
    root = root or repo_root()
    check_id(paper_id)
    registry_text = (root / REGISTRY).read_text()
    entries = (yaml.safe_load(registry_text) or {}).get("papers") or []
    check_free(paper_id, root, [e["id"] for e in entries])
    title = title or f"TODO: the title of {paper_id}"
    if "\n" in title or not title.strip():
        raise UserError("the title is one non-empty line")
    seed_index = max((int(e["seed_index"]) for e in entries), default=0) + 1
    date = date or datetime.now(UTC).date().isoformat()
    files = render(paper_id, title, seed_index, date)
    new_registry = registry_with(registry_text, Template((TEMPLATE_DIR / "registry_entry.yaml.tmpl").read_text())
                                 .substitute(id=paper_id, title_yaml=json.dumps(title), seed_index=seed_index))
    papers = [Paper(**entry) for entry in yaml.safe_load(new_registry)["papers"]]
    if [p.id for p in papers] != [*(e["id"] for e in entries), paper_id]:  # the append landed in the `papers:` list
        raise UserError(f"{REGISTRY}: the new entry would not be the last of `papers:`; add it by hand")
    readme_text = (root / README).read_text()
    edits = {REGISTRY: new_registry, README: readme_with(readme_text, papers_markdown(papers=papers))}
    _write_all(root, files, edits, {REGISTRY: registry_text, README: readme_text})
    return [*files, *edits]


def _write_all(root: Path, files: dict[str, str], edits: dict[str, str], originals: dict[str, str]) -> None:
    """New files first (none exists: check_free), then the edits; on any failure undo everything written so far."""
    created: list[Path] = []
    edited: list[str] = []
    try:
        for rel, text in files.items():
            path = root / rel
            missing = [d for d in [path.parent, *path.parent.parents] if not d.exists()]
            path.parent.mkdir(parents=True, exist_ok=True)
            created.extend(sorted(missing, key=lambda d: len(d.parts), reverse=True))
            with open(path, "x") as handle:  # "x": never overwrite
                created.insert(0, path)
                handle.write(text)
        for rel, text in edits.items():
            write_text(root / rel, text)  # atomic: a failed write leaves the file as it was
            edited.append(rel)
    except BaseException:
        for rel in edited:
            write_text(root / rel, originals[rel])
        for path in sorted(set(created), key=lambda p: len(p.parts), reverse=True):  # files before their folders
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
        raise


NEXT_STEPS = """\
next (docs/adding-a-paper.md):
  config/claims/{id}.yaml           the abstract's claims (replace the placeholder)
  src/neurips26/papers/{id}/        the method, experiments, tables, figures, claims (each stage says where)
  config/{id}/scale/*.yaml          the sizes; config/datasets.yaml for its data
  then status: implemented in config/papers.yaml, `make dvc-yaml`, and the commands under "Switching it on"."""


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m neurips26 new-paper",
                                     description="Scaffold a new planned paper (docs/adding-a-paper.md).")
    parser.add_argument("paper_id", help="the new id: lower case letters, digits and _, starting with a letter")
    parser.add_argument("--title", help="the paper's title for config/papers.yaml (default: a TODO)")
    args = parser.parse_args(argv)
    for rel in scaffold(args.paper_id, args.title):
        print(rel)
    print(NEXT_STEPS.format(id=args.paper_id))

"""The paper registry, config/papers.yaml (a CONTRACT): which papers exist, their status and promised artifacts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from neurips26.common.pipeline.errors import UserError

STATUSES = ("planned", "implemented")


def repo_root() -> Path:
    """The repository the pipeline runs in: $NEURIPS26_ROOT, else the nearest parent of the cwd with config/papers.yaml."""
    if env := os.environ.get("NEURIPS26_ROOT"):
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for candidate in (here, *here.parents):
        if (candidate / "config" / "papers.yaml").is_file():
            return candidate
    raise UserError(f"no config/papers.yaml in {here} or its parents: run from the repository (or set NEURIPS26_ROOT)")


@dataclass(frozen=True)
class Paper:
    id: str
    title: str
    seed_index: int
    status: str
    figures: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    # Curves for `dvc plots show` (optional): [{table, x, y, by?, title?, template?}], see src/neurips26/dvc_yaml.py.
    plots: list[dict] = field(default_factory=list)

    @property
    def implemented(self) -> bool:
        return self.status == "implemented"

    @property
    def artifacts(self) -> list[str]:
        return [*self.figures, *self.tables]


def load_papers(root: Path | None = None) -> list[Paper]:
    path = (root or repo_root()) / "config" / "papers.yaml"
    # libyaml when present: the same safe loader, in C (the Snakefile reads the registry at every parse)
    entries = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["papers"]
    papers = []
    for entry in entries:
        paper = Paper(**entry)
        if paper.status not in STATUSES:
            raise UserError(f"{path}: paper {paper.id!r} has status {paper.status!r}; expected one of {', '.join(STATUSES)}")
        papers.append(paper)
    return papers


def get_paper(paper_id: str, root: Path | None = None) -> Paper:
    papers = {p.id: p for p in load_papers(root)}
    if paper_id not in papers:
        raise UserError(f"unknown paper id {paper_id!r}; known ids: {', '.join(papers)}")
    return papers[paper_id]


def registered_claims(paper_id: str, root: Path | None = None) -> dict:
    """config/claims/<paper_id>.yaml: `claims`, the claims of the paper's abstract, each {id, abstract: the abstract's
    sentence} (or `paper:` / `brief:` for one stated elsewhere), and `sanity`, the ids of its construction checks. Every
    claim listed has an entry of kind 'claim' in claims.json and no other entry has; every sanity id an entry of kind
    'sanity'. One file per paper, read only by the claims stage and the tests (never at the Snakefile's parse)."""
    path = (root or repo_root()) / "config" / "claims" / f"{paper_id}.yaml"
    if not path.is_file():
        raise UserError(f"{path} is missing: list the claims of {paper_id}'s abstract there (see config/claims/)")
    entry = yaml.safe_load(path.read_text()) or {}
    claims, sanity = entry.get("claims") or [], entry.get("sanity") or []
    for claim in claims:
        sources = [k for k in ("abstract", "paper", "brief") if k in claim]
        if set(claim) - {"id", "abstract", "paper", "brief", "note"} or "id" not in claim or len(sources) != 1:
            raise UserError(f"{path}: each claim is {{id, abstract|paper|brief: sentence[, note]}}; got {claim}")
    return {"claims": claims, "sanity": [str(s) for s in sanity]}


def selected_papers(requested: list[str], root: Path | None = None) -> list[Paper]:
    """The implemented papers to build: all of them when `requested` is empty, else exactly those (each must exist)."""
    papers = load_papers(root)
    if not requested:
        return [p for p in papers if p.implemented]
    chosen = [get_paper(pid, root) for pid in requested]
    planned = [p.id for p in chosen if not p.implemented]
    if planned:
        raise UserError(f"config key 'papers': {', '.join(planned)} is planned, not implemented yet "
                        "(see config/papers.yaml)")
    return chosen


def papers_markdown(root: Path | None = None, papers: list[Paper] | None = None) -> str:
    """The README's paper table (a test keeps the README in sync with config/papers.yaml); of `papers` when given."""
    lines = ["| # | paper_id | paper | status | artifacts |", "|---|---|---|---|---|"]
    for paper in load_papers(root) if papers is None else papers:
        readme = f"[{paper.id}](src/neurips26/papers/{paper.id}/README.md)" if paper.implemented else f"`{paper.id}`"
        artifacts = ", ".join(f"`{a}`" for a in paper.artifacts) or "-"
        lines.append(f"| {paper.seed_index} | {readme} | {paper.title} | {paper.status} | {artifacts} |")
    return "\n".join(lines) + "\n"

"""Every `snakemake --report` caption renders: Jinja with the names a caption can use (snakemake/report/__init__.py
renders it with the job's input, output, params, wildcards, config...), then docutils, strictly (an undefined name or an
RST warning fails). Every captioned output belongs to a summary rule, whose outputs are expand() lists: no wildcards."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from neurips26.common.pipeline.config import load_run_config
from neurips26.common.pipeline.registry import load_papers
from tests.conftest import ROOT

CAPTION = re.compile(r'"\.\./report/([\w.]+)"')


def _captions(repo_root) -> list[tuple[str, str]]:
    """(caption file, the rule whose report it captions). Only summary jobs put files in the report: the template of
    workflow/rules/summary.smk captions every paper's `<id>_summary`, and a paper's own caption (`captions=` of its
    paper_summary call) captions its own."""
    papers = [paper.id for paper in load_papers() if paper.implemented]
    found = []
    for smk in sorted((repo_root / "workflow" / "rules").glob("*.smk")):
        if smk.stem not in ("summary", *papers):
            continue  # the project's rules: the report's own front page (index.rst) is no figure caption
        for name in CAPTION.findall(smk.read_text()):
            owners = papers if smk.stem == "summary" else [smk.stem]
            found += [(name, f"{paper_id}_summary") for paper_id in owners]
    return found


def test_every_caption_file_is_used_and_every_used_one_exists(repo_root):
    used = {name for name, _ in _captions(repo_root)}
    on_disk = {p.name for p in (repo_root / "workflow" / "report").glob("*_*.rst")}
    assert used, "no caption found: the check would be vacuous"
    assert used == on_disk


def test_every_paper_figure_uses_the_one_template(repo_root):
    """One caption template for the figures of every paper's summary rule (the rule's name gives the paper)."""
    by_rule: dict[str, set[str]] = {}
    for name, rule in _captions(repo_root):
        by_rule.setdefault(rule, set()).add(name)
    implemented = {paper.id for paper in load_papers() if paper.implemented}
    assert set(by_rule) == {f"{paper_id}_summary" for paper_id in implemented}
    assert all("paper_figure.rst" in names for names in by_rule.values())
    # a caption of its own only for an output that is not a figure of tables (dodge_it's rollout frames)
    assert {name for names in by_rule.values() for name in names} == {"paper_figure.rst", "dodge_it_frames.rst"}


def _render(repo_root, name: str, rule: str) -> str:
    import jinja2
    from docutils.core import publish_parts
    from snakemake.iocontainers import Wildcards

    text = (repo_root / "workflow" / "report" / name).read_text()
    snakemake = SimpleNamespace(input=[], output=[], params={}, wildcards=Wildcards(), threads=1, resources={},
                                log=[], config=load_run_config(repo_root), rule=rule)
    # the report's Jinja environment, but strict: an undefined name raises instead of rendering as nothing
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    rendered = env.from_string(text).render(snakemake=snakemake, categories=[], files=[])
    publish_parts(rendered, writer="html", settings_overrides={"halt_level": 2, "report_level": 5})
    return rendered


@pytest.mark.parametrize(("name", "rule"), _captions(ROOT), ids=lambda value: value)
def test_the_caption_renders(repo_root, name, rule):
    _render(repo_root, name, rule)


def test_the_template_names_the_rules_paper(repo_root):
    rendered = _render(repo_root, "paper_figure.rst", "mec_mmd_summary")
    assert rendered.startswith("mec_mmd figures") and "src/neurips26/papers/mec_mmd/README.md" in rendered

"""Every `snakemake --report` caption renders: Jinja with the names a caption can use (snakemake/report/__init__.py
renders it with the job's input, output, params, wildcards, config...), then docutils, strictly (an undefined name or an
RST warning fails). Every captioned output belongs to a summary rule, whose outputs are expand() lists: no wildcards."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from neurips26.common.pipeline.config import load_run_config
from tests.conftest import ROOT

CAPTION = re.compile(r'caption="\.\./report/([\w.]+)"')


def _captions(repo_root) -> dict[str, str]:
    """caption file -> the rule file that uses it."""
    found = {}
    for smk in sorted((repo_root / "workflow" / "rules").glob("*.smk")):
        for name in CAPTION.findall(smk.read_text()):
            found[name] = smk.name
    return found


def test_every_caption_file_is_used_and_every_used_one_exists(repo_root):
    used = set(_captions(repo_root))
    on_disk = {p.name for p in (repo_root / "workflow" / "report").glob("*_*.rst")}
    assert used, "no caption found: the check would be vacuous"
    assert used == on_disk


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "workflow" / "report").glob("*_*.rst")))
def test_the_caption_renders(repo_root, name):
    import jinja2
    from docutils.core import publish_parts
    from snakemake.iocontainers import Wildcards

    text = (repo_root / "workflow" / "report" / name).read_text()
    snakemake = SimpleNamespace(input=[], output=[], params={}, wildcards=Wildcards(), threads=1, resources={},
                                log=[], config=load_run_config(repo_root), rule=name.removesuffix(".rst"))
    # the report's Jinja environment, but strict: an undefined name raises instead of rendering as nothing
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    rendered = env.from_string(text).render(snakemake=snakemake, categories=[], files=[])
    publish_parts(rendered, writer="html", settings_overrides={"halt_level": 2, "report_level": 5})

"""`python -m neurips26 new-paper` in a throw-away copy of the repository: the planned skeleton leaves the pipeline and
the repository's own checks as they were; switched to implemented, its rules plan every job of the paper, and each
stage says which file to write instead of producing anything; a taken or invalid id writes nothing."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from neurips26 import scaffold
from neurips26.common.pipeline.registry import papers_markdown
from tests.conftest import copy_repository, env_for, snakemake

pytestmark = pytest.mark.workflow

NEW = "toy_paper"


def neurips26(copy, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "neurips26", *args], cwd=copy, env=env_for(copy), text=True,
                          capture_output=True, timeout=timeout)


def pytest_in(copy, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--benchmark-disable", *args],
                          cwd=copy, env=env_for(copy), text=True, capture_output=True, timeout=600)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory):
    copy = copy_repository(tmp_path_factory.mktemp("scaffold"))
    result = neurips26(copy, "new-paper", NEW, "--title", "A toy paper for the scaffold test")
    assert result.returncode == 0, result.stderr
    assert f"workflow/rules/{NEW}.smk" in result.stdout and "next (docs/adding-a-paper.md)" in result.stdout
    return copy


def _files(copy) -> dict[str, bytes]:
    return {p.relative_to(copy).as_posix(): p.read_bytes() for p in sorted(copy.rglob("*"))
            if p.is_file() and not {".git", "__pycache__"} & set(p.relative_to(copy).parts)}


def _set_status(copy, status: str) -> None:
    registry = copy / "config/papers.yaml"
    head, entry = registry.read_text().split(f"  - id: {NEW}\n")
    registry.write_text(head + f"  - id: {NEW}\n" + re.sub(r"status: \w+", f"status: {status}", entry, count=1))


def _repositorys_checks_pass(copy) -> None:
    """The checks that read every registered paper, run in the copy on the scaffolded one: config scales, the README's
    paper table, captions, the registry's files, the claims files."""
    checks = pytest_in(copy, "tests/unit/test_config_scales.py", "tests/unit/test_readme.py",
                       "tests/unit/test_report_captions.py", "tests/unit/test_registry.py", "tests/unit/test_claims.py",
                       "-k", f"{NEW} or test_readme_paper_table or test_every_caption_file or test_every_implemented_paper")
    assert checks.returncode == 0, checks.stdout[-3000:]
    passed = re.search(r"(\d+) passed", checks.stdout)
    assert passed and int(passed.group(1)) >= 10, checks.stdout[-1000:]  # 6 scale checks, 1 caption, 3 others


def test_every_file_is_written_and_the_paper_is_planned(scaffolded):
    assert all((scaffolded / rel).is_file() for rel in scaffold.target_paths(NEW))
    status = subprocess.run(["git", "status", "--porcelain"], cwd=scaffolded, text=True, capture_output=True).stdout
    changed = {line[3:] for line in status.splitlines()}
    assert {"config/papers.yaml", "README.md"} <= changed, "the registry entry and the README's paper table"
    entry = (scaffolded / "config/papers.yaml").read_text().split(f"  - id: {NEW}\n")[1]
    assert "status: planned" in entry and "seed_index: 20" in entry


def test_planned_it_builds_nothing_and_the_repositorys_checks_pass(scaffolded):
    """results/all is planned as before (the rule file is not included), and the checks that read every registered
    paper (config scales, README table, captions, registry, claims files, lint of the generated Python) pass."""
    planned = snakemake(scaffolded, "results/all", "-n", "--quiet", "rules")
    assert "mec_mmd_summary" in planned.stdout and NEW not in planned.stdout + planned.stderr
    _repositorys_checks_pass(scaffolded)
    assert neurips26(scaffolded, "dvc-yaml", "--check").returncode == 0, "a planned paper has no DVC stage"
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", f"src/neurips26/papers/{NEW}"], cwd=scaffolded,
                          text=True, capture_output=True)
    assert lint.returncode == 0, lint.stdout


def test_switched_on_its_rules_plan_every_job_and_each_stage_says_what_to_write(scaffolded, tmp_path):
    kept = {rel: (scaffolded / rel).read_text() for rel in ("dvc.yaml", "README.md")}
    _set_status(scaffolded, "implemented")
    try:  # the steps of docs/adding-a-paper.md, "Switching it on": dvc.yaml and the README's paper table
        regenerated = neurips26(scaffolded, "dvc-yaml")
        assert regenerated.returncode == 0, regenerated.stderr
        readme = scaffolded / "README.md"
        readme.write_text(scaffold.readme_with(readme.read_text(), papers_markdown(scaffolded)))
        _repositorys_checks_pass(scaffolded)
        plan = snakemake(scaffolded, f"results/{NEW}/claims.json", "-n", "-p").stdout
        for rule, count in (("paper_config", 1), (f"{NEW}_run", 3), (f"{NEW}_summary", 1)):
            assert any(line.split() == [rule, str(count)] for line in plan.splitlines()), (rule, plan[-2000:])
        assert f"--output results/{NEW}/claims.json results/{NEW}/metrics.json" in plan
        everything = snakemake(scaffolded, "results/all", "-n", "--quiet", "rules").stdout
        assert f"{NEW}_summary" in everything and "mec_mmd_summary" in everything

        config = neurips26(scaffolded, NEW, "config", "--output", str(tmp_path / "config.yaml"), "scale=tiny")
        assert config.returncode == 0, config.stderr
        assert "scale_name: tiny" in (tmp_path / "config.yaml").read_text()
        run = neurips26(scaffolded, NEW, "run_main", "--config", str(tmp_path / "config.yaml"), "--seed", "0",
                        "--output", str(tmp_path / "seed0.csv"))
        assert run.returncode != 0 and not (tmp_path / "seed0.csv").exists()
        assert f"NotImplementedError: {NEW}: the `main` experiment" in run.stderr
        assert f"src/neurips26/papers/{NEW}/experiments.py" in run.stderr
    finally:
        _set_status(scaffolded, "planned")
        for rel, text in kept.items():
            (scaffolded / rel).write_text(text)


@pytest.mark.parametrize(("paper_id", "message"), [
    (NEW, f"{NEW!r} is taken"), ("mec_mmd", "'mec_mmd' is taken"), ("Bad-Id", "invalid paper id"),
    ("class", "Python keyword"), ("report", "reserved"), ("claims", "taken: config/claims already"),
])
def test_a_taken_or_invalid_id_writes_nothing(scaffolded, paper_id, message):
    before = _files(scaffolded)
    result = neurips26(scaffolded, "new-paper", paper_id)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert _files(scaffolded) == before

"""The Makefile's own behaviour, without installing anything: `make -n` shows what a target would run, and the lock
filter is a target of its own that reads pip freeze text on stdin."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


def _make(repo_root, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-C", str(repo_root), *args], input=stdin, text=True,
                          capture_output=True, timeout=60)


def test_a_bare_make_prints_help_and_runs_nothing_else(repo_root):
    planned = _make(repo_root, "-n")
    assert planned.returncode == 0, planned.stderr
    assert "pip" not in planned.stdout and "venv" not in planned.stdout, planned.stdout  # was install-slurm
    shown = _make(repo_root)
    assert shown.returncode == 0, shown.stderr
    documented = re.findall(r"^make ([\w-]+)", shown.stdout, flags=re.M)
    assert {"help", "results", "test", "test-fast", "lint", "lock"} <= set(documented), shown.stdout
    for target in documented:  # every documented target exists
        assert _make(repo_root, "-n", target).returncode == 0, target


def test_make_lock_keeps_every_pin_and_drops_the_no_deps_and_slurm_packages(repo_root):
    """pip freeze of an installed .venv is requirements.lock (torch as +cpu), the --no-deps packages (pip may print _ for
    -) and the Slurm executor plugins; the filter must give back requirements.lock exactly."""
    locked = (repo_root / "requirements.lock").read_text().splitlines()
    no_deps = re.search(r"^NO_DEPS_PACKAGES := (.*)$", (repo_root / "Makefile").read_text(), flags=re.M).group(1).split()
    assert {"rapidocr-onnxruntime==1.4.4", "reasoning-gym==0.1.25"} <= set(no_deps)
    freeze = [re.sub(r"^torch==([0-9.]+)$", r"torch==\1+cpu", line) for line in locked]
    freeze += no_deps + [pin.replace("-", "_") for pin in no_deps]
    freeze += (repo_root / "requirements-slurm.lock").read_text().splitlines()
    result = _make(repo_root, "-s", "lock-filter", stdin="\n".join(sorted(freeze, key=str.lower)) + "\n")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines(), key=str.lower) == sorted(locked, key=str.lower)


def test_ci_runs_make_lint_which_runs_ruff_and_snakemake_lint(repo_root):
    commands = [line.split("#")[0].strip() for line in (repo_root / ".ci" / "run").read_text().splitlines()]
    assert "make lint" in commands and commands.index("make lint") < commands.index("make test")
    planned = _make(repo_root, "-n", "lint").stdout
    assert "ruff check" in planned and "test_dag.py -k lint" in planned and "dvc-yaml --check" in planned


@pytest.mark.slow
def test_make_test_fast_runs_the_unit_tests_but_the_slow_ones(repo_root):
    planned = _make(repo_root, "-n", "test-fast").stdout.strip().splitlines()[-1]
    assert "pytest" in planned and "-m 'not slow'" in planned and planned.endswith("tests/unit"), planned
    # the slowest unit test measured (~50 s: the Numba kernel against its reference, compiling it first) is left out
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "--strict-markers",
         "-m", "not slow", "tests/unit/test_dofp_lut_kernel.py"], cwd=repo_root, text=True, capture_output=True)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "test_kernel_equals_reference_on_random_mosaics_and_edges" not in collected.stdout
    assert "deselected" in collected.stdout


@pytest.mark.parametrize("target", ["test", "test-fast", "lint"])
def test_the_test_targets_install_first(repo_root, target):
    """A fresh checkout's `make <target>` builds .venv first (the stamp), as README promises."""
    assert re.search(rf"^{re.escape(target)}:.*\$\(STAMP\)", (repo_root / "Makefile").read_text(), flags=re.M)

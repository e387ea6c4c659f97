"""Bad input on the command line: a specific error, exit code 2, no output written."""

import os
import subprocess
import sys

from tests.conftest import mark_planned


def run_cli(repo_root, *args, env=None):
    return subprocess.run([sys.executable, "-m", "neurips26", *args], cwd=repo_root, capture_output=True, text=True,
                          env=env)


def test_unknown_paper_id(repo_root):
    result = run_cli(repo_root, "nopaper", "run_bias")
    assert result.returncode == 2
    assert "unknown paper id 'nopaper'" in result.stderr and "mec_mmd" in result.stderr


def test_unknown_stage_lists_the_known_ones(repo_root, tmp_path):
    out = tmp_path / "x.csv"
    result = run_cli(repo_root, "mec_mmd", "run_everything", "--output", str(out))
    assert result.returncode == 2
    assert "unknown stage 'run_everything'" in result.stderr and "run_bias" in result.stderr
    assert not out.exists()


def test_planned_paper_has_no_stages(repo_root, tmp_path):
    mark_planned(tmp_path, "plant")
    result = run_cli(repo_root, "plant", "config", env={**os.environ, "NEURIPS26_ROOT": str(tmp_path)})
    assert result.returncode == 2 and "planned" in result.stderr


def test_invalid_override_value(repo_root, tmp_path):
    out = tmp_path / "config.yaml"
    result = run_cli(repo_root, "mec_mmd", "config", "--output", str(out), "device=tpu")
    assert result.returncode == 2 and "'device'" in result.stderr and "auto, cpu, cuda" in result.stderr
    assert not out.exists()


def test_config_stage_writes_the_resolved_config(repo_root, tmp_path):
    out = tmp_path / "config.yaml"
    result = run_cli(repo_root, "mec_mmd", "config", "--output", str(out), "scale=tiny", "seeds=[3]")
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "scale_name: tiny" in text and "- 3" in text


def test_stages_separated_by_double_colon_run_in_order_in_one_call(repo_root, tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    result = run_cli(repo_root, "mec_mmd", "config", "--output", str(first), "scale=tiny", "::",
                     "config", "--output", str(second), "scale=tiny", "seeds=[7]")
    assert result.returncode == 0, result.stderr
    # each step keeps its own overrides
    assert "- 7" in second.read_text() and "- 7" not in first.read_text()


def test_an_unknown_later_stage_stops_the_call_before_any_stage_writes(repo_root, tmp_path):
    first = tmp_path / "a.yaml"
    result = run_cli(repo_root, "mec_mmd", "config", "--output", str(first), "::", "figure_nothing", "--output", "x.png")
    assert result.returncode == 2 and "unknown stage 'figure_nothing'" in result.stderr
    assert not first.exists()


def test_an_empty_step_is_an_error(repo_root, tmp_path):
    result = run_cli(repo_root, "mec_mmd", "config", "--output", str(tmp_path / "a.yaml"), "::")
    assert result.returncode == 2 and "empty stage" in result.stderr


def test_every_reserved_command_has_an_entry_point_that_exists():
    import importlib

    from neurips26.cli import ENTRY_POINTS
    from neurips26.project_commands import PROJECT_COMMANDS

    assert set(ENTRY_POINTS) == set(PROJECT_COMMANDS)
    for target in ENTRY_POINTS.values():
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), target


def test_the_papers_command_prints_the_registry(capsys):
    from neurips26.cli import main

    assert main(["papers"]) == 0
    assert "mec_mmd" in capsys.readouterr().out

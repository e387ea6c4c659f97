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

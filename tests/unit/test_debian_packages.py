"""tools/debian_packages.py: which Debian packages `make install` / .ci/run install, and how (root, sudo, or a stop)."""

import importlib.util

import pytest


@pytest.fixture(scope="module")
def tool(repo_root):
    spec = importlib.util.spec_from_file_location("debian_packages", repo_root / "tools" / "debian_packages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_list_parses_and_test_packages_come_only_with_test(tool):
    run, everything = tool.read_list(), tool.read_list(with_test=True)
    assert "dataset-fashion-mnist" in run and "slurmctld" not in run
    assert set(run) < set(everything) and "slurmctld" in everything


def test_a_malformed_line_names_the_file_and_line(tool, tmp_path):
    bad = tmp_path / "list.txt"
    bad.write_text("# comment\nmake run the Makefile\ngit sometimes\n")
    with pytest.raises(SystemExit, match=r"list.txt:3"):
        tool.read_list(bad)


def test_root_installs_directly_sudo_through_sudo_and_otherwise_it_stops_with_one_line(tool):
    assert tool.plan([], is_root=False, sudo_works=False) == ("ok", [])
    action, commands = tool.plan(["a", "b"], is_root=True, sudo_works=False)
    assert action == "install" and commands[0][:2] == ["apt-get", "update"] and commands[1][-2:] == ["a", "b"]
    action, commands = tool.plan(["a"], is_root=False, sudo_works=True)
    assert action == "install" and all(c[:2] == ["sudo", "-n"] for c in commands)
    stop = tool.plan(["a", "b"], is_root=False, sudo_works=False)
    assert stop == ("stop", [["sudo", "apt-get", "install", "-y", "a", "b"]])
    assert tool.plan(["a"], is_root=False, sudo_works=False, has_dpkg=False) == ("unknown", [])


def test_without_root_or_sudo_main_stops_before_any_work_and_prints_the_line(tool, monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(tool, "installed", lambda package: package != "dataset-fashion-mnist")
    monkeypatch.setattr(tool.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(tool, "sudo_works", lambda: False)
    monkeypatch.setattr(tool.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(tool.subprocess, "run", lambda *a, **k: ran.append(a))
    assert tool.main([]) == 1
    assert "sudo apt-get install -y dataset-fashion-mnist" in capsys.readouterr().err and ran == []

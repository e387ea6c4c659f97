"""DVC as its users use it, on a one-paper copy of the repository (mec_mmd at the tiny scale, one seed): a remote with
push / fresh clone / pull, experiments with params and metrics (run directly and through the queue), plots. Every DVC
process runs with the network blocked (a sitecustomize refuses any non-local connection or name lookup; a positive
control shows the block works)."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import copy_repository, env_for

pytestmark = pytest.mark.workflow

PAPER = "mec_mmd"  # the cheapest paper; the copy's registry marks the others planned, so dvc.yaml has only its stages
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")  # optional here: the results page test requires it
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
BLOCKER = '''\
"""Test-only: refuse every network connection and name lookup that is not local (loaded by every Python process)."""
import socket

LOCAL = {None, "", "localhost", "127.0.0.1", "::1"}
_getaddrinfo, _connect, _connect_ex = socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex


def _check(host):
    if host not in LOCAL and not (isinstance(host, str) and host.startswith("127.")):
        raise OSError(f"network access blocked by the test: {host!r}")


def getaddrinfo(host, *args, **kwargs):
    _check(host)
    return _getaddrinfo(host, *args, **kwargs)


def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address[0])
    return _connect(self, address)


def connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address[0])
    return _connect_ex(self, address)


socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex = getaddrinfo, connect, connect_ex
'''


def offline_env(repo: Path, blocker: Path) -> dict:
    env = env_for(repo)
    env["PYTHONPATH"] = f"{blocker}{os.pathsep}{env['PYTHONPATH']}"
    return env


def run(repo: Path, blocker: Path, *command: str, check: bool = True, timeout: int = 300):
    result = subprocess.run(list(command), cwd=repo, env=offline_env(repo, blocker), capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-3000:]}\n"
                             f"{result.stderr[-5000:]}")
    return result


def dvc(repo: Path, blocker: Path, *args: str, check: bool = True, timeout: int = 300):
    return run(repo, blocker, sys.executable, "-m", "dvc", *args, check=check, timeout=timeout)


@pytest.fixture(scope="module")
def blocker(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("no_network")
    (folder / "sitecustomize.py").write_text(BLOCKER)
    return folder


@pytest.fixture(scope="module")
def one_paper(tmp_path_factory, blocker) -> Path:
    """A copy with only PAPER implemented, tiny scale, seed 0, reproduced with `dvc repro` and committed."""
    copy = copy_repository(tmp_path_factory.mktemp("dvc_repo"))
    for key, value in (("user.name", "t"), ("user.email", "t@t")):  # `dvc exp run` commits: no global identity needed
        subprocess.run(["git", "config", key, value], cwd=copy, check=True)
    registry = copy / "config/papers.yaml"
    papers = yaml.safe_load(registry.read_text())
    for entry in papers["papers"]:
        if entry["id"] != PAPER:
            entry["status"] = "planned"
    registry.write_text(yaml.safe_dump(papers, sort_keys=False))
    config = copy / "config/config.yaml"
    config.write_text(config.read_text().replace("scale: default", "scale: tiny").replace("seeds: [0, 1, 2]", "seeds: [0]"))
    run(copy, blocker, sys.executable, "-m", "neurips26", "dvc-yaml")
    subprocess.run([*GIT, "commit", "-qam", f"only {PAPER}, tiny"], cwd=copy, check=True)
    dvc(copy, blocker, "repro", timeout=600)
    # DVC caches the outputs without rewriting them (cache.type reflink,copy): Snakemake still sees them as built.
    dry = run(copy, blocker, sys.executable, "-m", "snakemake", "-n", "results/all")
    assert "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout
    subprocess.run([*GIT, "add", "-A"], cwd=copy, check=True)
    subprocess.run([*GIT, "commit", "-qm", "dvc repro"], cwd=copy, check=True)
    return copy


@pytest.fixture(scope="module")
def pushed(one_paper, blocker, tmp_path_factory) -> Path:
    """The committed run pushed to a local directory remote (the remote's address committed, as a team would)."""
    remote = tmp_path_factory.mktemp("dvc_remote")
    dvc(one_paper, blocker, "remote", "add", "-d", "shared", str(remote))
    subprocess.run([*GIT, "commit", "-qam", "DVC remote"], cwd=one_paper, check=True)
    dvc(one_paper, blocker, "push")
    assert any(remote.rglob("*")), "dvc push wrote nothing to the remote"
    return one_paper


@pytest.fixture(scope="module")
def experiment(pushed, blocker) -> str:
    """An experiment on top of the pushed commit: another seed, set with `dvc exp run -S`."""
    dvc(pushed, blocker, "exp", "run", "-n", "seed1", "-S", "config/config.yaml:seeds=[1]", timeout=600)
    return "seed1"


def test_the_network_block_works(blocker, tmp_path):
    """Positive control: the same environment refuses a connection to a public address and a name lookup."""
    probe = ("import socket\nfor target in (('93.184.216.34', 80), ('example.org', 443)):\n"
             "    try:\n        socket.create_connection(target, timeout=2)\n"
             "    except OSError as error:\n        print(error)\n")
    result = run(tmp_path, blocker, sys.executable, "-c", probe)
    assert result.stdout.count("network access blocked by the test") == 2, result.stdout + result.stderr


def test_push_fresh_clone_pull_leaves_nothing_to_rebuild(pushed, blocker, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(pushed), str(clone)], check=True)
    dvc(clone, blocker, "pull")
    for path in [f"results/{PAPER}/claims.json", f"results/{PAPER}/metrics.json", "results/all/index.html",
                 f"data/raw/{PAPER}_mixture/provenance.json", f"logs/{PAPER}"]:
        assert (clone / path).exists(), path
    assert (clone / f"results/{PAPER}/claims.json").read_bytes() == (pushed / f"results/{PAPER}/claims.json").read_bytes()
    settled = run(clone, blocker, sys.executable, "-m", "neurips26", "dvc-pulled")
    assert "dvc status is clean" in settled.stdout
    dry = run(clone, blocker, sys.executable, "-m", "snakemake", "-n", "results/all")
    assert "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout + dry.stderr
    # Negative control: a changed setting of the paper must still be rebuilt, and dvc-pulled must not hide it.
    hydra = clone / f"config/{PAPER}/scale/tiny.yaml"
    hydra.write_text(hydra.read_text().replace("replicates: 3", "replicates: 4", 1))
    refused = run(clone, blocker, sys.executable, "-m", "neurips26", "dvc-pulled", check=False)
    assert refused.returncode != 0 and "not clean" in refused.stderr, refused.stdout + refused.stderr
    dry = run(clone, blocker, sys.executable, "-m", "snakemake", "-n", "results/all")
    assert "rule paper_config:" in dry.stdout and f"output: results/{PAPER}/config.yaml" in dry.stdout, dry.stdout
    assert "report_build" in dry.stdout, dry.stdout


def find_row(node, name):
    """The `dvc exp show --json` entry of the experiment called `name` (searched through the nested lists)."""
    if isinstance(node, dict):
        if node.get("name") == name and "data" in node:
            return node
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        if (found := find_row(child, name)) is not None:
            return found
    return None


def test_exp_run_is_listed_with_its_params_and_every_metric(pushed, experiment, blocker):
    shown = json.loads(dvc(pushed, blocker, "exp", "show", "--json").stdout)
    row = find_row(shown, experiment)
    assert row is not None, json.dumps(shown)[:3000]
    params = row["data"]["params"]["config/config.yaml"]["data"]
    assert params["seeds"] == [1] and params["scale"] == "tiny"
    assert f"config/{PAPER}/config.yaml" in row["data"]["params"]
    metrics = row["data"]["metrics"][f"results/{PAPER}/metrics.json"]["data"]
    written = json.loads((pushed / f"results/{PAPER}/metrics.json").read_text())  # the workspace is the experiment
    assert metrics == {key: value for key, value in written.items() if value is not None}  # DVC leaves out nulls
    baseline = shown[0]["data"] if shown[0].get("rev") == "workspace" else None
    assert baseline is None or baseline["params"]["config/config.yaml"]["data"]["seeds"] == [1]
    diff = json.loads(dvc(pushed, blocker, "params", "diff", "--json").stdout)
    change = diff["config/config.yaml"]["seeds"]  # DVC reports list values as their text
    assert yaml.safe_load(str(change["old"])) == [0] and yaml.safe_load(str(change["new"])) == [1], diff


def test_a_queued_experiment_runs_through_the_queue_worker(pushed, experiment, blocker):
    """`dvc exp run --queue`, then `dvc queue start`: the worker runs the pipeline in its own copy of the workspace (it
    stops once the queue is empty) and the experiment is listed with its params and metrics, as one run with -S is."""
    name = "queued-seed2"
    dvc(pushed, blocker, "exp", "run", "--queue", "-n", name, "-S", "config/config.yaml:seeds=[2]")
    dvc(pushed, blocker, "queue", "start", "-j", "1")
    deadline, status = time.monotonic() + 600, ""
    try:
        while time.monotonic() < deadline:
            status = dvc(pushed, blocker, "queue", "status").stdout
            if re.search(rf"{name}.*(Success|Failed)", status):
                break
            time.sleep(5)
    finally:
        dvc(pushed, blocker, "queue", "stop", "--kill", check=False)
    logs = dvc(pushed, blocker, "queue", "logs", name, check=False)
    assert re.search(rf"{name}.*Success", status), status + logs.stdout[-3000:] + logs.stderr[-2000:]
    row = find_row(json.loads(dvc(pushed, blocker, "exp", "show", "--json").stdout), name)
    assert row is not None and row["data"]["params"]["config/config.yaml"]["data"]["seeds"] == [2]
    assert row["data"]["metrics"][f"results/{PAPER}/metrics.json"]["data"], row["data"]["metrics"]


def test_plots_show_and_diff_write_their_html_without_network(pushed, experiment, blocker, tmp_path):
    paper = next(p for p in yaml.safe_load((pushed / "config/papers.yaml").read_text())["papers"] if p["id"] == PAPER)
    dvc(pushed, blocker, "plots", "show", "-o", str(tmp_path / "show"))
    html = (tmp_path / "show/index.html").read_text()
    for curve in paper["plots"]:  # DVC's div id is the plot id with every non-word character made "_"
        plot_id = f'{PAPER}/{Path(curve["table"]).stem}: {curve["y"]} vs {curve["x"]}'
        div_id = re.sub(r"\W", "_", plot_id)
        assert f'id = "{div_id}"' in html, curve
    assert html.count("vegaEmbed(") == len(paper["plots"])
    for figure in paper["figures"]:
        assert Path(figure).stem in html, figure
    assert len(list((tmp_path / "show").rglob("*.png"))) == len(paper["figures"])
    # The only addresses in the page: the Vega scripts it loads from the CDN when opened, and the schema id.
    urls = set(re.findall(r"https?://[^\"'\s<>]+", html))
    assert {u.split("/npm/")[0] for u in urls} <= {"https://cdn.jsdelivr.net", "https://vega.github.io/schema/vega-lite/v5.json"}
    # The offline variant: the Vega libraries that Snakemake ships, next to the page; it renders one canvas a curve.
    run(pushed, blocker, sys.executable, "-m", "neurips26", "dvc-plots-offline", str(tmp_path / "show"))
    html = (tmp_path / "show/index.html").read_text()
    assert re.findall(r'<script src="([^"]+)"', html) == ["vendor/vega.js", "vendor/vega-lite.js", "vendor/vega-embed.js"]
    if CHROMIUM:
        dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9",
                              "--virtual-time-budget=10000", "--dump-dom", (tmp_path / "show/index.html").as_uri()],
                             capture_output=True, text=True, timeout=120).stdout
        assert dom.count('class="marks"') == len(paper["plots"]), dom[-2000:]
    dvc(pushed, blocker, "plots", "diff", "HEAD", experiment, "-o", str(tmp_path / "diff"))
    html = (tmp_path / "diff/index.html").read_text()
    assert experiment in html and "HEAD" in html


def test_every_declared_curve_names_columns_of_its_tiny_table(tiny_run):
    """The `plots:` declarations of config/papers.yaml against the tables that the tiny run wrote."""
    for paper in yaml.safe_load((tiny_run / "config/papers.yaml").read_text())["papers"]:
        for curve in paper.get("plots", []) if paper["status"] == "implemented" else []:
            with open(tiny_run / "results" / paper["id"] / curve["table"]) as handle:
                header = next(csv.reader(handle))
            missing = {curve["x"], curve["y"], *curve.get("by", [])} - set(header)
            assert not missing, f"{paper['id']} {curve['table']}: no column {sorted(missing)} in {header}"

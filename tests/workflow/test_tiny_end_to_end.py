"""results/all at the tiny scale in a copy of the repository: artifacts, report, manifest, reruns, kills, DVC."""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
import yaml

from neurips26.common.pipeline.digests import sha256_of
from tests.conftest import env_for, snakemake

pytestmark = pytest.mark.workflow


def manifest(copy):
    with open(copy / "results/all/manifest.tsv") as handle:
        return {row["path"]: row for row in csv.DictReader(handle, delimiter="\t")}


def implemented(copy):
    return [p for p in yaml.safe_load((copy / "config/papers.yaml").read_text())["papers"] if p["status"] == "implemented"]


def test_every_promised_artifact_is_built_and_listed(tiny_run):
    entries = manifest(tiny_run)
    html = (tiny_run / "results/all/index.html").read_text()
    for paper in implemented(tiny_run):
        base = f"results/{paper['id']}"
        for artifact in [*paper["figures"], *paper["tables"], "claims.json", "metrics.json", "config.yaml"]:
            assert f"{base}/{artifact}" in entries, artifact
        for artifact in [*paper["figures"], *paper["tables"]]:
            assert artifact in html
        assert f'id="{paper["id"]}"' in html
    planned = [p["id"] for p in yaml.safe_load((tiny_run / "config/papers.yaml").read_text())["papers"]
               if p["status"] != "implemented"]
    assert ("Planned papers" in html) == bool(planned) and all(f"<code>{pid}</code>" in html for pid in planned)
    assert "http://" not in html and "https://" not in html, "index.html must not load anything from the network"


def test_manifest_hashes_sizes_and_rules_match_the_files(tiny_run):
    for path, row in manifest(tiny_run).items():
        file = tiny_run / path
        assert row["sha256"] == sha256_of(file) and int(row["bytes"]) == file.stat().st_size, path
        # a paper's own rules made it, or the one rule that writes every paper's resolved config
        own = row["rule"].startswith(row["paper_id"] + "_")
        config = row["rule"] == "paper_config" and path == f"results/{row['paper_id']}/config.yaml"
        assert own or config, (path, row["rule"])


def test_claims_csv_has_one_row_per_claim_and_claims_follow_the_contract(tiny_run):
    with open(tiny_run / "results/all/claims.csv") as handle:
        rows = list(csv.DictReader(handle))
    total = 0
    for paper in implemented(tiny_run):
        document = json.loads((tiny_run / f"results/{paper['id']}/claims.json").read_text())
        assert document["scale"] == "tiny" and document["seeds"] == [0, 1]
        total += len(document["claims"])
        for claim in document["claims"]:
            assert all((tiny_run / f"results/{paper['id']}" / e).exists() for e in claim["evidence"])
    assert len(rows) == total


def test_a_rerun_with_nothing_changed_does_nothing(tiny_run):
    result = snakemake(tiny_run, "--profile", "profiles/ci", "--cores", "2", "-n", "results/all")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_a_changed_parameter_reruns_its_paper(tiny_run):
    result = snakemake(tiny_run, "results/all", "--profile", "profiles/ci", "--cores", "2", "-n", "--config", "scale=tiny",
                       "seeds=[0]",
                       "--quiet", "rules")
    assert "paper_config" in result.stdout and "mec_mmd_run" in result.stdout and "report_build" in result.stdout


def test_an_edited_module_reruns_exactly_the_jobs_that_run_it(tiny_run):
    """A rule's code input is the stamp of the modules it runs (common/pipeline/code_stamp.py): editing mec_mmd's figures plans
    that paper's summary and the report, none of its runs; restoring the text (a newer file, the recorded content)
    plans nothing."""
    module = tiny_run / "src/neurips26/papers/mec_mmd/figures.py"
    original = module.read_text()
    try:
        module.write_text(original + "\n# edited\n")
        planned = snakemake(tiny_run, "results/all", "--profile", "profiles/ci", "--cores", "2", "-n", "--quiet",
                            "rules").stdout
    finally:
        module.write_text(original)
    assert "mec_mmd_summary" in planned and "report_build" in planned
    assert "mec_mmd_run" not in planned and "paper_config" not in planned
    result = snakemake(tiny_run, "--profile", "profiles/ci", "--cores", "2", "-n", "results/all")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_dvc_repro_runs_and_leaves_a_clean_status(tiny_run):
    """The generated dvc.yaml wraps the same Snakemake targets; at the copy's tiny config it reproduces and settles."""
    config = tiny_run / "config/config.yaml"
    original = config.read_text()
    config.write_text(original.replace("scale: default", "scale: tiny").replace("seeds: [0, 1, 2]", "seeds: [0, 1]"))
    dvc = [sys.executable, "-m", "dvc"]
    env = env_for(tiny_run)
    try:
        repro = subprocess.run([*dvc, "repro"], cwd=tiny_run, env=env, capture_output=True, text=True, timeout=600)
        assert repro.returncode == 0, repro.stdout + repro.stderr
        status = subprocess.run([*dvc, "status"], cwd=tiny_run, env=env, capture_output=True, text=True, timeout=120)
        assert status.returncode == 0 and "up to date" in status.stdout, status.stdout + status.stderr
        metrics = subprocess.run([*dvc, "metrics", "show"], cwd=tiny_run, env=env, capture_output=True, text=True,
                                 timeout=120)
        assert "results/mec_mmd/metrics.json" in metrics.stdout, metrics.stdout + metrics.stderr
    finally:
        # the shared tree goes back to its committed config: claims.json records whether the tree was dirty, so a
        # later rebuild in a mutated tree would differ from the first build in that flag alone
        config.write_text(original)


# The papers the kill test rebuilds: cheap tiny runs of several parallel jobs each (about 100 job-seconds together).
# Left out: the papers whose artifacts hold measured wall-clock times (dofp_lut's timing tables, zo_dominant_layer's
# s_per_step, kondo_gate's, rldp's and mental_imagery's timings: a rerun measures other times, so their bytes cannot
# repeat), and the others for CI's time.
KILL_PAPERS = ("mec_mmd", "causal_compile", "docatlas", "docptbench")


def started_jobs(copy):
    return [log for paper_id in KILL_PAPERS for log in (copy / "logs" / paper_id).glob("run_*.log")]


def test_killed_run_is_redone_and_reproduces_identical_results(tiny_run):
    """Delete four papers' results and the report, rebuild them, kill Snakemake and its jobs mid-run (SIGKILL, as a crash would),
    rerun: every artifact of results/all comes back with the same bytes as before (hashes of the files themselves).
    Deleted, not touched: Snakemake does not rerun a job whose newer input still has the checksum it recorded, so
    touching the configs reran nothing (this test passed without running a job until 2026-12-01)."""
    before = {path: sha256_of(tiny_run / path) for path in manifest(tiny_run)}
    rebuilt = [path for path in before if path.split("/")[1] in KILL_PAPERS]
    for paper_id in [*KILL_PAPERS, "all"]:  # results/all too: Snakemake 9 rebuilds no deleted input of an output it keeps
        shutil.rmtree(tiny_run / "results" / paper_id)
    shutil.rmtree(tiny_run / "logs")  # so that the wait below sees this run's jobs start, not the last run's logs
    command = [sys.executable, "-m", "snakemake", "--profile", "profiles/ci", "--cores", "2", "results/all"]
    process = subprocess.Popen(command, cwd=tiny_run, env=env_for(tiny_run), start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not started_jobs(tiny_run):
        time.sleep(0.2)
    time.sleep(1.0)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert started_jobs(tiny_run), "no job of the deleted papers started: nothing was killed mid-run"
    assert not all((tiny_run / path).exists() for path in rebuilt), "the run finished before the kill"
    snakemake(tiny_run, "--unlock")
    snakemake(tiny_run, "--profile", "profiles/ci", "--cores", "2", "results/all", timeout=1800)
    assert {path: sha256_of(tiny_run / path) for path in before} == before
    assert set(manifest(tiny_run)) == set(before)


def test_robustness_reruns_a_paper_on_fresh_seed_sets_beside_results_all(tiny_run):
    """results/robustness: mec_mmd's claims on two seed sets disjoint from the configured seeds, each set its own job,
    robustness.json with "holds in k of K", and the page marking it; results/all is left as it was."""
    before = sha256_of(tiny_run / "results/all/claims.csv")
    snakemake(tiny_run, "--profile", "profiles/ci", "--cores", "2", "results/robustness", "--config", "scale=tiny",
              "seeds=[0,1]", "papers=[mec_mmd]", "robustness={sets: 2, size: 3, first_seed: 100}", timeout=900)
    robustness = json.loads((tiny_run / "results/mec_mmd/robustness.json").read_text())
    assert robustness["seed_sets"] == [[100, 101, 102], [103, 104, 105]]
    for name in ("100-101-102", "103-104-105"):
        document = json.loads((tiny_run / f"results/mec_mmd/robustness/seeds-{name}.json").read_text())
        assert document["seeds"] == [int(s) for s in name.split("-")] and document["provenance"]["commit"]
    claim_ids = [c["id"] for c in json.loads((tiny_run / "results/mec_mmd/claims.json").read_text())["claims"]]
    assert [c["id"] for c in robustness["claims"]] == claim_ids
    assert all(c["sets"] == 2 and 0 <= c["holds_in"] <= 2 for c in robustness["claims"])
    page = (tiny_run / "results/robustness/index.html").read_text()
    assert "seed sets</span>" in page and "holds in" in page
    assert sha256_of(tiny_run / "results/all/claims.csv") == before

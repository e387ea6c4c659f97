"""profiles/slurm against a real one-node Slurm (tests/local_slurm.py): the tiny scale of the cluster papers (below) runs
through sbatch (one bundle per paper), the scheduler's own records show the jobs, only the local rules run on the
submitting host, results/all matches a local run byte for byte, a second run submits nothing, and a failing rule (run
alongside, in the same directory) is reported as failed, fast, by name.

Deselect with `pytest -m "not cluster"`. Skips (with the reason) without root, Slurm or the executor plugin; .ci/run sets
NEURIPS26_REQUIRE_SLURM=1, which turns those skips into failures so that CI cannot pass without running it.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import re
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from neurips26.common.pipeline.digests import sha256_of
from tests.conftest import ROOT, copy_repository, env_for
from tests.local_slurm import SECOND_PARTITION, LocalSlurm, missing_requirements
from tests.rule_directives import local_rules

pytestmark = [pytest.mark.cluster, pytest.mark.workflow]

TINY = ["--config", "scale=tiny", "seeds=[0,1]"]  # the run config of profiles/ci, which the local tiny_run uses
RUN_TIMEOUT = 900  # seconds; a hang (the sacct trap) fails here instead of stalling CI
FAILURE_TIMEOUT = 180
# Every sbatch job pays two Snakemake start-ups (the job and its job step), and every dependent job waits for a status
# poll, so one sbatch job per tiny job (~90) would spend most of CI's time in overhead. The test therefore bundles all of
# a paper's remote jobs into one sbatch job, `<paper>_bundle` (--groups, which overrides the workflow's own
# `<paper>_summary` groups; --group-components for papers whose jobs are not all connected). A bundle asks for the
# summed resources of the jobs it runs side by side, GPUs included. Users get one job per training run.
COMPONENTS = 16  # connected pieces per bundle: more than any paper has
# CI's 30 minutes do not stretch to all 19 papers' tiny runs through sbatch, so the test runs the papers that together
# exercise every rule kind: a CPU sweep of one-seed jobs, a GPU-requesting rule, the summary group job, local rules
# (data, config, report), and the failing rule beside them (test_the_cluster_papers_cover_every_rule_kind checks the
# kinds). What is left out: the other papers' jobs on the cluster; their tiny runs are tested locally (tests/workflow),
# and their rule conventions statically (tests/workflow/test_dag.py). NEURIPS26_CLUSTER_PAPERS=all (or a comma list)
# runs others.
CLUSTER_PAPERS = ("mec_mmd", "prequential_mdl")


def cluster_papers(implemented: list[str]) -> list[str]:
    chosen = os.environ.get("NEURIPS26_CLUSTER_PAPERS", ",".join(CLUSTER_PAPERS))
    return implemented if chosen == "all" else [p for p in implemented if p in chosen.split(",")]


def plugin_path() -> str | None:
    """'' when the executor plugin is importable here (make install-slurm), else the folder that holds it, else None."""
    names = ("snakemake_executor_plugin_slurm", "snakemake_executor_plugin_slurm_jobstep")
    if all(importlib.util.find_spec(name) for name in names):
        return ""
    local = ROOT / ".slurm-plugin"  # pip install --target .slurm-plugin --no-deps -r requirements-slurm.lock
    if all((local / name).is_dir() for name in names):
        return str(local)
    return None


def planned_jobs(copy: Path, env: dict, run_config: list[str]) -> Counter:
    """rule -> number of jobs of the tiny run (Snakemake's own dry-run statistics)."""
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "results/all", "--profile", "profiles/slurm",
                          "--quiet", "rules", *run_config], cwd=copy, env=env, text=True, capture_output=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    counts = Counter()
    for line in (out.stdout + out.stderr).splitlines():
        match = re.fullmatch(r"(\w+)\s+(\d+)", line.strip())
        if match and match.group(1) != "total":
            counts[match.group(1)] = int(match.group(2))
    assert counts, out.stdout + out.stderr
    return counts


def gpu_rules() -> set[str]:
    """Rules for which profiles/slurm requests a GPU."""
    resources = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text()).get("set-resources", {})
    return {rule for rule, res in resources.items() if "gpu" in res or "gpu" in str(res.get("gres", ""))}


def scheduler_jobs(slurm: LocalSlurm) -> list[dict]:
    """Every job the controller remembers (MinJobAge is an hour), as scontrol reports it."""
    out = subprocess.run(["scontrol", "show", "job", "--oneliner"], env=slurm.env(), text=True, capture_output=True,
                         timeout=60)
    jobs = []
    for line in out.stdout.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if "JobId" in fields:
            jobs.append(fields)
    return jobs


def paper_of(rule: str, papers: list[str]) -> str:
    """The paper a rule belongs to: rules are named <paper_id>_<step>."""
    owners = [paper for paper in papers if rule.startswith(paper + "_")]
    assert owners, f"rule {rule} is not named after an implemented paper"
    return max(owners, key=len)


def group_of(comment: str, groups: set[str]) -> str:
    """The group of a job from the comment the plugin gives a group job: rule_<group>_<its rules>."""
    body = comment.removeprefix("rule_")
    matches = [group for group in groups if body.startswith(group + "_")]
    assert matches, f"not a group job of this workflow: {comment}"
    return max(matches, key=len)


def manifest(copy: Path) -> dict:
    with open(copy / "results/all/manifest.tsv") as handle:
        return {row["path"]: row for row in csv.DictReader(handle, delimiter="\t")}


class Cluster:
    """The started cluster, the repository copy it works in, and how to run Snakemake there."""

    def __init__(self, slurm: LocalSlurm, copy: Path, plugin: str):
        self.slurm, self.copy = slurm, copy
        self.env = slurm.env(env_for(copy))
        if plugin:
            self.env["PYTHONPATH"] += os.pathsep + plugin
        self.env["NEURIPS26_SLURM_PARTITION"] = SECOND_PARTITION  # the user's partition, as the README says to set it
        self.local = local_rules(copy)
        self.papers = cluster_papers([p["id"] for p in yaml.safe_load((copy / "config/papers.yaml").read_text())["papers"]
                                      if p["status"] == "implemented"])
        self.run_config = [*TINY, f"papers=[{','.join(self.papers)}]"]
        self.planned = planned_jobs(copy, self.env, self.run_config)
        self.bundles = {rule: f"{paper_of(rule, self.papers)}_bundle" for rule in sorted(set(self.planned) - self.local)}
        self.grouping = ["--groups", *(f"{rule}={group}" for rule, group in self.bundles.items()),
                         "--group-components", *(f"{group}={COMPONENTS}" for group in sorted(set(self.bundles.values())))]

    def snakemake(self, *args: str, timeout: int = RUN_TIMEOUT) -> subprocess.CompletedProcess:
        command = ["timeout", "-s", "INT", "-k", "30", str(timeout), sys.executable, "-m", "snakemake", *args]
        started = time.time()
        result = subprocess.run(command, cwd=self.copy, env=self.env, text=True, capture_output=True)
        result.seconds = time.time() - started
        result.output = result.stdout + result.stderr
        return result

    def run_all(self) -> subprocess.CompletedProcess:
        return self.snakemake("results/all", "--profile", "profiles/slurm", *self.grouping, *self.run_config)

    def run_failure(self) -> subprocess.CompletedProcess:
        (self.copy / "failing.smk").write_text(FAILING_WORKFLOW)
        return self.snakemake("-s", "failing.smk", "--profile", "profiles/slurm", "results/cluster_test_failure.txt",
                              *TINY, timeout=FAILURE_TIMEOUT)

    def jobs_of(self, result: subprocess.CompletedProcess) -> list[dict]:
        """The scheduler's records of the jobs one Snakemake invocation submitted (their job name is its run id)."""
        run_id = re.search(r"SLURM run ID: (\S+)", result.output)
        return [job for job in scheduler_jobs(self.slurm) if run_id and job.get("JobName") == run_id.group(1)]

    def rules_of(self, job: dict) -> set[str]:
        """The rules of a bundle's sbatch job."""
        group = group_of(job["Comment"], set(self.bundles.values()))
        return {rule for rule, of in self.bundles.items() if of == group}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = missing_requirements()
    plugin = plugin_path()
    if reason is None and plugin is None:
        reason = "snakemake-executor-plugin-slurm is not installed: run `make install-slurm`"
    if reason:
        if os.environ.get("NEURIPS26_REQUIRE_SLURM"):
            pytest.fail(f"NEURIPS26_REQUIRE_SLURM is set but the cluster test cannot run: {reason}")
        pytest.skip(reason)
    slurm = LocalSlurm(tmp_path_factory.mktemp("slurm"))
    slurm.start()
    pids = slurm.pids()
    try:
        yield Cluster(slurm, copy_repository(tmp_path_factory.mktemp("cluster_repo")), plugin)
    finally:
        slurm.stop()
        survivors = slurm.running(pids)
        assert not survivors, f"daemons still running after stop: {survivors}"


@pytest.fixture(scope="module")
def runs(cluster):
    """The full tiny run and, side by side with it (it would otherwise add its minute to CI), a run of one rule that
    fails on purpose. They share the directory as two users' runs would: their outputs do not overlap."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        failing = pool.submit(cluster.run_failure)
        first = cluster.run_all()
        return first, failing.result()


@pytest.fixture(scope="module")
def first_run(cluster, runs):
    result = runs[0]
    assert result.returncode == 0, f"{result.output[-6000:]}\n{cluster.slurm.logs()}"
    return result


def test_every_job_went_through_sbatch_and_the_scheduler_recorded_it(cluster, first_run):
    submitted = set(re.findall(r"submitted with SLURM jobid (\d+)", first_run.output))
    records = {job["JobId"]: job for job in cluster.jobs_of(first_run)}
    assert submitted and set(records) == submitted, (submitted, sorted(records))
    assert {job["JobState"] for job in records.values()} == {"COMPLETED"}
    assert {job["Partition"] for job in records.values()} == {SECOND_PARTITION}, "the partition comes from the user"
    # Snakemake prints a job it runs itself as `localrule <rule>:` and a job it submits as `rule <rule>:`
    ran_here = set(re.findall(r"^localrule (\w+):", first_run.output, flags=re.M))
    submitted_rules = set(re.findall(r"^\s*rule (\w+):", first_run.output, flags=re.M))
    assert submitted_rules == set(cluster.planned) - cluster.local, "every compute rule ran on the cluster"
    assert ran_here == set(cluster.planned) & cluster.local, "only the local rules (downloads, configs, page) did not"
    assert {"data_prepare", "report_build"} <= ran_here
    bundles = Counter(group_of(job["Comment"], set(cluster.bundles.values())) for job in records.values())
    assert set(bundles) == {f"{paper}_bundle" for paper in cluster.papers} and set(bundles.values()) == {1}, \
        f"each paper's jobs ran as one sbatch job: {bundles}"
    # the scheduler's persistent record (jobcomp/filetxt) holds the same jobs
    assert submitted <= {record["JobId"] for record in cluster.slurm.finished_jobs()}


def test_gpu_rules_requested_a_gpu_from_the_scheduler(cluster, first_run):
    wanted = gpu_rules() & set(cluster.planned)
    assert wanted, "profiles/slurm requests a GPU for no rule of the implemented papers"
    for job in cluster.jobs_of(first_run):
        rules = cluster.rules_of(job)
        gres = job.get("TresPerJob", "") + job.get("TresPerNode", "")
        assert ("gpu" in gres) == bool(rules & wanted), (rules, gres)


def test_the_cluster_papers_cover_every_rule_kind(cluster):
    computed = set(cluster.planned) - cluster.local
    assert gpu_rules() & computed, "a GPU-requesting rule"
    assert any(cluster.planned[rule] > 1 and rule.endswith("_run") for rule in computed), "a sweep of run jobs"
    assert any(rule.endswith("_summary") for rule in computed), "a summary job (tables, figures, claims)"
    assert {"data_prepare", "report_build"} <= set(cluster.planned) & cluster.local, "local rules"
    assert "paper_config" in set(cluster.planned) & cluster.local, "the papers' configs"


def test_results_match_a_local_run_byte_for_byte(cluster, first_run, tiny_run):
    on_cluster = manifest(cluster.copy)
    local = {path: row for path, row in manifest(tiny_run).items() if row["paper_id"] in cluster.papers}
    assert set(on_cluster) == set(local)
    for path, row in on_cluster.items():
        assert sha256_of(cluster.copy / path) == row["sha256"], f"{path} differs from the manifest"
        assert (row["sha256"], row["bytes"], row["rule"]) == (local[path]["sha256"], local[path]["bytes"],
                                                              local[path]["rule"]), f"{path} differs from the local run"
    papers = yaml.safe_load((cluster.copy / "config/papers.yaml").read_text())["papers"]
    for paper in (p for p in papers if p["id"] in cluster.papers):
        for artifact in [*paper["figures"], *paper["tables"], "claims.json"]:
            assert f"results/{paper['id']}/{artifact}" in on_cluster


def test_a_second_run_submits_nothing(cluster, first_run):
    before = len(scheduler_jobs(cluster.slurm))
    again = cluster.run_all()
    assert again.returncode == 0, again.output[-4000:]
    assert "Nothing to be done" in again.output
    assert "submitted with SLURM jobid" not in again.output
    assert len(scheduler_jobs(cluster.slurm)) == before


FAILING_WORKFLOW = '''# The project's workflow plus one rule that fails on purpose (written by the cluster test).
include: "Snakefile"


rule cluster_test_failure:
    output:
        "results/cluster_test_failure.txt",
    log:
        "logs/cluster_test_failure.log",
    resources:
        mem_mb=100,
        runtime=1,
    shell:
        "echo 'deliberate failure from the cluster test' > {log}; exit 3"
'''


def test_a_failing_rule_is_reported_by_name_and_fast(cluster, runs):
    result = runs[1]
    assert result.returncode not in (0, 124, 137), f"rc={result.returncode}\n{result.output[-4000:]}"
    assert result.seconds < FAILURE_TIMEOUT - 30
    assert "Error in rule cluster_test_failure" in result.output
    assert "deliberate failure from the cluster test" in result.output, "show-failed-logs prints the rule's log"
    slurm_log = re.search(r"(\S+/slurm_logs/\S+\.log)", result.output)
    assert slurm_log and Path(slurm_log.group(1)).exists(), "the failed job's sbatch log is kept and named"
    records = cluster.jobs_of(result)
    assert [job["JobState"] for job in records] == ["FAILED"], records
    assert not (cluster.copy / "results/cluster_test_failure.txt").exists()

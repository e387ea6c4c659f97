"""The DAG itself: dry run, lint, bad config, and the data rule's refusal to download in embedded mode."""

import pytest

from neurips26.common.pipeline.registry import load_papers
from tests.conftest import ROOT, copy_repository, mark_planned, snakemake
from tests.rule_directives import local_rules, rule_blocks, shell_steps, summary_jobs, workflow_groups

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory):
    return copy_repository(tmp_path_factory.mktemp("dag"))


def test_dry_run_of_results_all_plans_every_promised_artifact(repo_copy):
    result = snakemake(repo_copy, "results/all", "-n", "--quiet", "rules")
    for rule in ("mec_mmd_run", "mec_mmd_summary", "report_build"):
        assert rule in result.stdout, rule


def test_every_paper_composes_and_plans_at_the_long_scale(repo_copy):
    result = snakemake(repo_copy, "results/all", "-n", "--quiet", "rules", "--config", "scale=long")
    for paper in load_papers():
        assert f"{paper.id}_summary" in result.stdout, paper.id


def test_robustness_is_one_job_per_paper_and_seed_set_and_not_part_of_results_all(repo_copy):
    planned = snakemake(repo_copy, "results/robustness", "-n", "--quiet", "rules", "--config",
                        "robustness={sets: 2, size: 3, first_seed: 100}").stdout
    implemented = [p.id for p in load_papers() if p.implemented]
    counts = {line.split()[0]: line.split()[1] for line in planned.splitlines() if len(line.split()) == 2}
    assert counts.get("robustness_set") == str(2 * len(implemented)), planned[-3000:]
    assert counts.get("robustness_paper") == str(len(implemented))
    assert "robustness" not in snakemake(repo_copy, "results/all", "-n", "--quiet", "rules").stdout


def test_one_rule_writes_every_papers_config_and_no_other_path(repo_copy):
    """`paper_config` (workflow/rules/config.smk) is one job per selected paper; its wildcard is constrained to the
    implemented ids, so a config.yaml anywhere else has no rule."""
    planned = snakemake(repo_copy, "results/all", "-n", "--quiet", "rules").stdout
    implemented = [p.id for p in load_papers() if p.implemented]
    assert any(line.split() == ["paper_config", str(len(implemented))] for line in planned.splitlines()), planned[-3000:]
    for path in ("results/all/config.yaml", "results/nopaper/config.yaml", f"results/{implemented[0]}/runs/config.yaml"):
        result = snakemake(repo_copy, "-n", path, check=False)
        assert result.returncode != 0 and "MissingRuleException" in result.stdout + result.stderr, path


def test_bookkeeping_is_local_and_each_papers_summary_is_one_job():
    """On a cluster, composing a config (milliseconds) must not wait in the queue, and a paper's tables, figures and
    claims (seconds each) are one job, `<id>_summary`, running their stages in one process (`stage_steps`), which writes
    the claims. A new paper follows the same shape."""
    local, groups, rules = local_rules(ROOT), workflow_groups(ROOT), rule_blocks(ROOT)
    assert {"data_prepare", "report_build", "paper_config"} <= local
    for paper in (p.id for p in load_papers() if p.implemented):
        assert f"{paper}_config" not in rules, f"{paper}: its config is written by the one rule paper_config"
        summary = rules.get(f"{paper}_summary", "")
        assert "stage_steps(" in summary and f"results/{paper}/claims.json" in summary, paper
        stray = {rule for rule in rules if rule.startswith(f"{paper}_") and
                 any(rule.endswith(part) for part in ("_table", "_tables", "_figure", "_figures", "_claims"))}
        assert not stray, f"{paper}: tables, figures and claims belong to {paper}_summary, not {stray}"
    assert not local & set(groups), "a grouped rule is never local (Snakemake would submit it anyway)"


def test_each_summary_step_reads_only_declared_inputs_or_earlier_steps_outputs(repo_copy):
    """A summary job declares its inputs once for Snakemake and again inside its steps: a step that reads a file the rule
    does not declare (and no earlier step writes) would run on stale data or race its producer. Checked on the planned
    jobs of a dry run at the default scale, so every grid and every paper is covered."""
    result = snakemake(repo_copy, "results/all", "-n", "-p", "--forceall")
    jobs = summary_jobs(result.stdout)
    implemented = {p.id for p in load_papers() if p.implemented}
    assert {rule.removesuffix("_summary") for rule in jobs} == implemented
    for rule, (inputs, outputs, shell) in jobs.items():
        available, steps = set(inputs), shell_steps(shell)
        assert any(reads for _, reads, _ in steps), f"{rule}: no --input parsed; the check would be vacuous"
        for stage, reads, writes in steps:
            assert set(reads) <= available, f"{rule} {stage} reads undeclared {sorted(set(reads) - available)}"
            assert set(writes) <= set(outputs), f"{rule} {stage} writes undeclared {sorted(set(writes) - set(outputs))}"
            available |= set(writes)


def test_every_command_fits_linuxs_argument_limit_at_paper_scale_with_ten_seeds(repo_copy):
    """Snakemake runs a job's command as one argument of `bash -c`, and Linux refuses any single argument over 128 KB
    (MAX_ARG_STRLEN): a command that grows with the seeds (the report's producers map did, to ~160 KB) would fail only
    on a user's large run. Checked on every job of a paper-scale plan with ten seeds, with a 4 KB margin for the
    prefix Snakemake adds."""
    seeds = ",".join(str(seed) for seed in range(10))
    result = snakemake(repo_copy, "results/all", "-n", "-p", "--forceall", "--config", "scale=paper", f"seeds=[{seeds}]")
    commands = [line for line in result.stdout.splitlines() if line.startswith("Shell command: ")]
    assert len(commands) > 500, "too few commands parsed: the check would be vacuous"
    longest = max(commands, key=len)
    assert len(longest.encode()) < 128 * 1024 - 4096, longest[:300]


def test_lint_finds_nothing_but_the_justified_conda_warning(repo_copy):
    """The one remaining lint (no conda env per rule) is justified in the Snakefile; any other lint fails here."""
    result = snakemake(repo_copy, "--lint", check=False)
    lints = [line.strip() for line in (result.stdout + result.stderr).splitlines() if line.strip().startswith("* ")]
    assert lints, "lint printed nothing: the check would be vacuous"
    assert {lint for lint in lints} == {"* Specify a conda environment or container for each rule.:"}, lints


@pytest.mark.parametrize(("override", "message"), [
    ("scale=huge", "allowed values: tiny, default, long, paper"),
    ("robustness={sets: 1, size: 3, first_seed: 1}", "contain the configured seed(s) [1, 2]"),
    ("papers=[nopaper]", "unknown paper id 'nopaper'"),
])
def test_bad_config_is_refused_before_anything_runs(repo_copy, override, message):
    result = snakemake(repo_copy, "-n", "results/all", "--config", override, check=False)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr
    assert not (repo_copy / "results").exists()


def test_a_planned_paper_is_refused_before_anything_runs(tmp_path):
    """Every paper of the batch is implemented; a registry with one marked planned must refuse to run it."""
    copy = copy_repository(tmp_path / "repo")
    mark_planned(copy, "plant")
    result = snakemake(copy, "-n", "results/all", "--config", "papers=[plant]", check=False)
    assert result.returncode != 0
    assert "planned, not implemented" in result.stdout + result.stderr
    assert not (copy / "results").exists()


def test_an_unknown_dataset_fails_clearly_and_leaves_nothing(repo_copy):
    result = snakemake(repo_copy, "--cores", "1", "data/raw/anything/provenance.json", check=False)
    assert result.returncode != 0
    assert "unknown dataset 'anything'" in result.stdout + result.stderr
    assert not (repo_copy / "data" / "raw" / "anything").exists()

"""What the workflow's rule files declare about where rules run: `localrules:` / `localrule: True` (the submitting host)
and `group:` (one cluster job for a group's connected jobs). Read from the text, so that it needs no executor plugin."""

from __future__ import annotations

import re
from pathlib import Path


def workflow_files(copy: Path) -> list[Path]:
    return [copy / "Snakefile", *sorted((copy / "workflow/rules").glob("*.smk"))]


def rule_blocks(copy: Path) -> dict[str, str]:
    """rule name -> the text of its definition, for every rule of the workflow; a paper's `<id>_summary` is the template
    of workflow/rules/summary.smk with the paper's id put in (every rule file that calls paper_summary gets one)."""
    blocks = {}
    for path in workflow_files(copy):
        for match in re.finditer(r"^rule (\w+):\n((?:[ \t]+.*\n|\n)*)", path.read_text(), flags=re.M):
            blocks[match.group(1)] = match.group(2)
    template = re.search(r"^    rule:\n((?:[ \t]+.*\n|\n)*)", (copy / "workflow/rules/summary.smk").read_text(), re.M)
    for paper_id in summary_papers(copy):
        blocks[f"{paper_id}_summary"] = template.group(1).replace('f"', '"').replace("{paper_id}", paper_id)
    return blocks


def summary_papers(copy: Path) -> list[str]:
    """The ids whose rule file registers a summary job (`paper_summary("<id>", ...)`)."""
    ids = []
    for path in sorted((copy / "workflow/rules").glob("*.smk")):
        ids += re.findall(r'^paper_summary\(\n\s+"(\w+)"', path.read_text(), flags=re.M)
    return ids


def local_rules(copy: Path) -> set[str]:
    """Rules that run on the submitting host: named in a `localrules:` directive, or marked `localrule: True`."""
    names = set()
    for path in workflow_files(copy):
        for block in re.findall(r"^localrules:((?:.*\n?)(?:[ \t]+.*\n?)*)", path.read_text(), flags=re.M):
            names.update(re.findall(r"\w+", block.split("\n\n")[0]))
    return names | {rule for rule, body in rule_blocks(copy).items() if re.search(r"^\s+localrule:\s*True", body, re.M)}


def workflow_groups(copy: Path) -> dict[str, str]:
    """rule -> the group its `group:` directive names (the papers' summary groups)."""
    groups = {}
    for rule, body in rule_blocks(copy).items():
        match = re.search(r"^\s+group:\s*\n?\s*\"(\w+)\"", body, re.M)
        if match:
            groups[rule] = match.group(1)
    return groups


def summary_jobs(dry_run: str) -> dict[str, tuple[list[str], list[str], str]]:
    """rule -> (inputs, outputs, shell command) of every `<paper>_summary` job in a `snakemake -n -p` printout."""
    jobs = {}
    pattern = r"rule (\w+_summary):\n(?:.*\n)*?\s+input: (.*)\n\s+output: (.*)\n(?:.*\n)*?Shell command: (.*)"
    for match in re.finditer(pattern, dry_run):
        rule, inputs, outputs, shell = match.groups()
        jobs[rule] = (inputs.split(", "), outputs.split(", "), shell)
    return jobs


def shell_steps(shell: str) -> list[tuple[str, list[str], list[str]]]:
    """(stage, --input files, --output files) of each step of a `python -m neurips26 <paper> STEP :: STEP ...` call."""
    command = shell.split(" > ")[0].split()[4:]
    steps = []
    for step in " ".join(command).split(" :: "):
        words = step.split()
        files: dict[str, list[str]] = {"--input": [], "--output": []}
        current = None
        for word in words[1:]:
            if word.startswith("--"):
                current = word
            elif current in files:
                files[current].append(word)
        steps.append((words[0], files["--input"], files["--output"]))
    return steps

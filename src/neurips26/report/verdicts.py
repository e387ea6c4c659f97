"""Two views of the verdicts that live in the repository, both generated from a run's claims.json files:

- each paper README's claims table (between `<!-- claims:begin -->` and `<!-- claims:end -->`), never typed by hand;
- config/expected_verdicts.yaml, `<paper_id>: {<claim_id>: holds | fails | inconclusive}` at default scale on the
  configured seeds. `--check` reruns nothing: it compares a finished default run with that file and lists every
  difference (the `check-verdicts` make target runs the default scale first). Changing an expected verdict is a reviewed
  edit with its reason in the paper's JOURNAL.md.

    python -m neurips26 verdicts readme [PAPER ...] [--results results]     # rewrite the README tables
    python -m neurips26 verdicts write [PAPER ...] [--results results]      # record the expected verdicts
    python -m neurips26 verdicts check [--results results]                  # exit 1 on any difference
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.marked_block import block_of, with_block
from neurips26.common.pipeline.registry import load_papers, repo_root

BEGIN, END = "<!-- claims:begin -->", "<!-- claims:end -->"
EXPECTED = Path("config") / "expected_verdicts.yaml"


def load_document(results: Path, paper_id: str) -> dict:
    path = results / paper_id / "claims.json"
    if not path.is_file():
        raise UserError(f"{path} does not exist: build it first (snakemake --cores 2 {path})")
    document = json.loads(path.read_text())
    if document.get("contract") != 2:
        raise UserError(f"{path} is not a claims contract v2 document: rebuild it")
    return document


def _number(value) -> str:
    return "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def _ours(claim: dict) -> str:
    stat = claim.get("statistic") or {}
    text = f"{stat.get('name', '')} = {_number(stat.get('estimate'))}"
    if stat.get("ci_low") is not None:
        text += f" [{_number(stat['ci_low'])}, {_number(stat['ci_high'])}], n = {stat['n']}"
    return text


def _verdict(claim: dict) -> str:
    verdict = f"**{claim['verdict']}**"
    if claim.get("why_inconclusive"):
        verdict += f" ({claim['why_inconclusive']})"
    return verdict


def readme_table(document: dict) -> str:
    """Markdown table of a claims document; claims first, sanity checks after, with the run it came from."""
    lines = [f"Generated from `results/{document['paper_id']}/claims.json` (scale `{document['scale']}`, data "
             f"`{document['data']}`, seeds {document['seeds']}, commit "
             f"`{(document['provenance'].get('commit') or 'unknown')[:10]}`) by `python -m neurips26 verdicts readme`.",
             "", "| claim | kind | criterion | ours | paper | controls | verdict |", "|---|---|---|---|---|---|---|"]
    ordered = sorted(document["claims"], key=lambda c: c["kind"] != "claim")
    for claim in ordered:
        paper = claim["paper_value"]
        paper_text = f"{_number(paper['value'])} ({paper['where']})" if paper["value"] is not None else paper["where"]
        state = {True: "passed", False: "FAILED", None: "missing"}
        controls = ", ".join(f"{c['kind']} `{c['id']}`: {state[c['passed']]}" for c in claim["controls"]) or "-"
        cells = [f"`{claim['id']}`", claim["kind"], claim["criterion"], _ours(claim), paper_text, controls,
                 _verdict(claim)]
        lines.append("| " + " | ".join(cell.replace("\n", " ").replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def rewrite_readme(readme: Path, table: str) -> None:
    readme.write_text(with_block(readme.read_text(), BEGIN, END, f"\n{table}\n", str(readme)))


def readme_verdicts(readme: Path) -> dict[str, str]:
    """{claim id: verdict} as the README's generated table states them."""
    block = block_of(readme.read_text(), BEGIN, END) or ""
    found = {}
    for line in block.splitlines():
        match = re.match(r"\| `([a-z0-9_]+)` \| (claim|sanity) \|.*\| \*\*(holds|fails|inconclusive)\*\*", line)
        if match:
            found[match.group(1)] = match.group(3)
    return found


def expected_verdicts(root: Path) -> dict:
    path = root / EXPECTED
    return (yaml.safe_load(path.read_text()) or {}) if path.is_file() else {}


def differences(expected: dict, documents: dict[str, dict]) -> list[str]:
    found = []
    for paper_id, document in documents.items():
        want = expected.get(paper_id, {})
        got = {c["id"]: c["verdict"] for c in document["claims"]}
        for claim_id in sorted(set(want) | set(got)):
            if want.get(claim_id) != got.get(claim_id):
                found.append(f"{paper_id}.{claim_id}: expected {want.get(claim_id)}, got {got.get(claim_id)}")
    return found


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m neurips26 verdicts")
    parser.add_argument("action", choices=("readme", "write", "check"))
    parser.add_argument("papers", nargs="*", help="paper ids (default: every implemented paper)")
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    root = repo_root()
    ids = args.papers or [p.id for p in load_papers(root) if p.implemented]
    documents = {pid: load_document(args.results, pid) for pid in ids}
    if args.action != "readme":
        wrong = [pid for pid, d in documents.items() if d["scale"] != "default"]
        if wrong:
            raise UserError(f"expected verdicts are for scale=default; {wrong} were run at another scale")
    if args.action == "readme":
        for pid, document in documents.items():
            rewrite_readme(root / "src" / "neurips26" / "papers" / pid / "README.md", readme_table(document))
    elif args.action == "write":
        expected = expected_verdicts(root)
        for pid, document in documents.items():
            expected[pid] = {c["id"]: c["verdict"] for c in document["claims"]}
        ordered = {p.id: expected[p.id] for p in load_papers(root) if p.id in expected}
        header = ("# Verdicts at scale=default on the configured seeds (python -m neurips26 verdicts write). A change is a\n"
                  "# reviewed edit with its reason in the paper's JOURNAL.md; `make check-verdicts` lists differences.\n")
        (root / EXPECTED).write_text(header + yaml.safe_dump(ordered, sort_keys=False))
    else:
        found = differences(expected_verdicts(root), documents)
        print("\n".join(found) if found else f"every verdict of {len(documents)} papers is as expected")
        if found:
            sys.exit(1)

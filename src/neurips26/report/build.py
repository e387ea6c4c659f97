"""Build results/all from the papers' results folders: index.html, claims.csv, manifest.tsv.

Called by the report_build rule with the selected papers and, for every artifact, the rule that produced it.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pandas as pd

from neurips26.common.errors import UserError
from neurips26.common.fetch import sha256_of
from neurips26.common.registry import load_papers, repo_root
from neurips26.report.html import page, paper_section, summary_table


def claims_rows(paper_ids: list[str], results: Path) -> pd.DataFrame:
    rows = []
    for paper_id in paper_ids:
        document = json.loads((results / paper_id / "claims.json").read_text())
        for claim in document["claims"]:
            rows.append({"paper_id": paper_id, "claim_id": claim["id"], "statement": claim["statement"],
                         "source": claim["source"], "holds": claim["holds"], "criterion": claim["criterion"],
                         "measured": json.dumps(claim["measured"], sort_keys=True), "evidence": ";".join(claim["evidence"]),
                         "why_untested": claim.get("why_untested", ""),
                         "positive_control_holds": claim.get("positive_control", {}).get("holds", ""),
                         "scale": document["scale"],
                         "data": document["data"]})
    return pd.DataFrame(rows)


def manifest_rows(producers: dict[str, str], root: Path) -> pd.DataFrame:
    rows = []
    for path in sorted(producers):
        file = root / path
        if not file.is_file():
            raise UserError(f"manifest: artifact {path} does not exist")
        rows.append({"path": path, "sha256": sha256_of(file), "bytes": file.stat().st_size,
                     "paper_id": Path(path).parts[1], "rule": producers[path]})
    return pd.DataFrame(rows, columns=["path", "sha256", "bytes", "paper_id", "rule"])


def job_seconds(paper_id: str, root: Path) -> float | None:
    """Summed wall seconds of the paper's jobs in their last run (Snakemake benchmark files under logs/<paper_id>/)."""
    files = sorted((root / "logs" / paper_id / "benchmarks").glob("*.tsv"))
    if not files:
        return None
    return float(sum(pd.read_csv(f, sep="\t")["s"].iloc[-1] for f in files))


def overview_rows(papers: list, chosen_ids: list[str], results: Path, root: Path) -> list[dict]:
    rows = []
    for paper in papers:
        status = "implemented" if paper.id in chosen_ids else ("not in this run" if paper.implemented else "planned")
        row = {"id": paper.id, "title": paper.title, "seed_index": paper.seed_index, "status": status}
        if row["status"] == "implemented":
            document = json.loads((results / paper.id / "claims.json").read_text())
            verdicts = [c["holds"] for c in document["claims"]]
            row.update(scale=document["scale"], held=verdicts.count(True), failed=verdicts.count(False),
                       untested=verdicts.count(None), seconds=job_seconds(paper.id, root))
        rows.append(row)
    return rows


def build(output: Path, paper_ids: list[str], producers: dict[str, str], root: Path) -> None:
    results = root / "results"
    papers = load_papers(root)
    chosen = [p for p in papers if p.id in paper_ids]
    planned = [p for p in papers if not p.implemented]
    claims = claims_rows(paper_ids, results)
    verdicts = claims["holds"].value_counts(dropna=False).to_dict() if len(claims) else {}
    summary = (f"{len(chosen)} implemented paper(s), {len(planned)} planned; {len(claims)} claims: "
               f"{verdicts.get(True, 0)} hold, {verdicts.get(False, 0)} do not hold, "
               f"{sum(v for k, v in verdicts.items() if k is None or k != k)} untested.")
    staging = output.with_name(output.name + ".part")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    overview = summary_table(overview_rows(papers, paper_ids, results, root))
    (staging / "index.html").write_text(page([paper_section(p, results) for p in chosen], planned, summary, overview))
    claims.to_csv(staging / "claims.csv", index=False)
    manifest_rows(producers, root).to_csv(staging / "manifest.tsv", sep="\t", index=False)
    shutil.rmtree(output, ignore_errors=True)
    staging.rename(output)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m neurips26 report")
    parser.add_argument("--output", type=Path, required=True, help="the results/all folder")
    parser.add_argument("--papers", nargs="*", default=[])
    parser.add_argument("--producers", type=Path, help="JSON file: artifact path -> producing rule (default: none known)")
    args = parser.parse_args(argv)
    producers = json.loads(args.producers.read_text()) if args.producers else {}
    build(args.output, args.papers, producers, repo_root())

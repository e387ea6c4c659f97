"""Build results/all from the papers' results folders: index.html, claims.csv, manifest.tsv, provenance.json (each
paper's claims.json provenance: commit, packages, config and input sha256).

Called by the report_build rule with the selected papers and, for every artifact, the rule that produced it.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pandas as pd

from neurips26.common.pipeline.digests import sha256_of
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import load_papers, repo_root
from neurips26.report.html import page, paper_section, provenance_block, summary_table


def claims_rows(documents: dict[str, dict]) -> pd.DataFrame:
    """One row per claims.json entry of every paper: the verdict, the statistic, the paper's value, the controls (and,
    on the robustness page, in how many seed sets it holds and whether it is stable)."""
    rows = []
    for paper_id, document in documents.items():
        for claim in document["claims"]:
            stat = claim["statistic"] or {}
            robust = claim.get("robustness")
            extra = {"holds_in_sets": robust["holds_in"], "seed_sets": robust["sets"], "stable": robust["stable"]} \
                if robust else {}
            rows.append({**extra, "paper_id": paper_id, "claim_id": claim["id"], "kind": claim["kind"],
                         "statement": claim["statement"], "source": claim["source"], "verdict": claim["verdict"],
                         "holds": claim["holds"], "outcome": claim["outcome"],
                         "why_inconclusive": claim.get("why_inconclusive", ""), "criterion": claim["criterion"],
                         "statistic": stat.get("name", ""), "estimate": stat.get("estimate"),
                         "ci_low": stat.get("ci_low"), "ci_high": stat.get("ci_high"), "n": stat.get("n"),
                         "paper_value": claim["paper_value"]["value"], "paper_where": claim["paper_value"]["where"],
                         "controls": json.dumps({c["id"]: c["passed"] for c in claim["controls"]}, sort_keys=True),
                         "per_seed": json.dumps(claim["per_seed"], sort_keys=True),
                         "measured": json.dumps(claim["measured"], sort_keys=True),
                         "decided_at": claim["decided_at"], "evidence": ";".join(claim["evidence"]),
                         "scale": document["scale"], "data": document["data"],
                         "commit": document["provenance"]["commit"]})
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


def overview_rows(papers: list, documents: dict[str, dict], root: Path) -> list[dict]:
    rows = []
    for paper in papers:
        status = "implemented" if paper.id in documents else ("not in this run" if paper.implemented else "planned")
        row = {"id": paper.id, "title": paper.title, "seed_index": paper.seed_index, "status": status}
        if row["status"] == "implemented":
            document = documents[paper.id]
            verdicts = [c["verdict"] if c["kind"] == "claim" else "sanity" for c in document["claims"]]
            counts = {v: verdicts.count(v) for v in ("holds", "fails", "inconclusive", "sanity")}
            row.update(scale=document["scale"], counts=counts, seconds=job_seconds(paper.id, root))
        rows.append(row)
    return rows


def attach_robustness(document: dict, robustness: dict) -> None:
    """Each claim gets its robustness.json entry (in memory, for the page and claims.csv)."""
    by_id = {entry["id"]: entry for entry in robustness["claims"]}
    for claim in document["claims"]:
        claim["robustness"] = by_id.get(claim["id"])


def build(output: Path, paper_ids: list[str], producers: dict[str, str], root: Path, robustness: bool = False) -> None:
    results = root / "results"
    papers = load_papers(root)
    chosen = [p for p in papers if p.id in paper_ids]
    planned = [p for p in papers if not p.implemented]
    # each paper's claims.json, read once for the rows, the overview, the sections and the provenance
    documents = {pid: json.loads((results / pid / "claims.json").read_text()) for pid in paper_ids}
    if robustness:
        for pid, document in documents.items():
            attach_robustness(document, json.loads((results / pid / "robustness.json").read_text()))
    claims = claims_rows(documents)
    counted = claims[claims["kind"] == "claim"] if len(claims) else claims
    verdicts = counted["verdict"].value_counts().to_dict() if len(claims) else {}
    sanity = int((claims["kind"] == "sanity").sum()) if len(claims) else 0
    summary = (f"{len(chosen)} implemented paper(s), {len(planned)} planned; {len(counted)} claims: "
               f"{verdicts.get('holds', 0)} hold, {verdicts.get('fails', 0)} fail, "
               f"{verdicts.get('inconclusive', 0)} inconclusive; {sanity} sanity checks (not counted).")
    if robustness and len(counted):
        unstable = int((~counted["stable"].astype(bool)).sum())
        summary += (f" Robustness: each verdict rerun on further seed sets (holds in k/K beside it); {unstable} of "
                    f"{len(counted)} claims are unstable (their verdict differs between seed sets).")
    staging = output.with_name(output.name + ".part")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    overview = summary_table(overview_rows(papers, documents, root))
    (staging / "index.html").write_text(page([paper_section(p, results, documents[p.id]) for p in chosen], planned, summary,
                                               overview, provenance_block(list(documents.values()))))
    claims.to_csv(staging / "claims.csv", index=False)
    (staging / "provenance.json").write_text(json.dumps({pid: d["provenance"] for pid, d in documents.items()}, indent=2)
                                             + "\n")
    manifest_rows(producers, root).to_csv(staging / "manifest.tsv", sep="\t", index=False)
    shutil.rmtree(output, ignore_errors=True)
    staging.rename(output)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m neurips26 report")
    parser.add_argument("--output", type=Path, required=True, help="the results/all folder")
    parser.add_argument("--papers", nargs="*", default=[])
    parser.add_argument("--producers", type=Path, help="JSON file: artifact path -> producing rule (default: none known)")
    parser.add_argument("--robustness", action="store_true",
                        help="the robustness page: read each paper's robustness.json too (results/robustness)")
    args = parser.parse_args(argv)
    producers = json.loads(args.producers.read_text()) if args.producers else {}
    build(args.output, args.papers, producers, repo_root(), robustness=args.robustness)

"""results/<paper_id>/robustness.json: every claim's verdict on each robustness seed set, "holds in k of K", whether it
is the same everywhere, and each seed-interval test pooled over all the sets' seeds.

The configured run's verdict is shown beside the sets but not counted among them: its seeds chose the design, so it is
not a fresh replicate. A claim is `stable` when the configured run and every set give the same verdict. Pooling covers
the tests that are means over seeds (SeedTest): their per-seed values from all K sets form one t interval (n - 1 df)
against the claim's own bound and side. Rule tests and controls are not pooled (each is judged per set).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from neurips26.common.pipeline.artifacts import write_json
from neurips26.common.pipeline.claims import SeedTest
from neurips26.common.pipeline.errors import UserError


def _claim(document: dict, claim_id: str) -> dict | None:
    return next((c for c in document["claims"] if c["id"] == claim_id), None)


def pooled_tests(claim_id: str, entries: list[dict]) -> list[dict]:
    """Each seed-interval test of the claim, its per-seed values from every set in one interval."""
    pooled = []
    for test in entries[0]["tests"]:
        if test["kind"] != "seed_interval":
            continue
        values = {}
        for entry in entries:
            for seed, row in entry["per_seed"].items():
                if seed in values:
                    raise UserError(f"robustness: seed {seed} of claim {claim_id!r} is in two seed sets")
                values[seed] = row.get(test["name"])
        bound = tuple(test["bound"]) if test["side"] == "within" else test["bound"]
        pooled_test = SeedTest(test["name"], values, test["side"], bound, test["level"])
        pooled.append({**pooled_test.statistic(), "outcome": pooled_test.outcome()[0]})
    return pooled


def claim_summary(claim: dict, entries: list[dict | None]) -> dict:
    verdicts = [e["verdict"] if e else "missing" for e in entries]
    present = [e for e in entries if e]
    return {"id": claim["id"], "kind": claim["kind"], "configured_verdict": claim["verdict"], "set_verdicts": verdicts,
            "holds_in": verdicts.count("holds"), "sets": len(verdicts),
            "stable": len({claim["verdict"], *verdicts}) == 1,
            "pooled": pooled_tests(claim["id"], present) if len(present) == len(entries) and present else []}


def aggregate(configured: dict, sets: list[dict]) -> dict:
    if not sets:
        raise UserError("robustness: no seed set to aggregate (robustness.sets is 0)")
    seeds = [sorted(int(s) for s in document["seeds"]) for document in sets]
    overlap = {s for block in seeds for s in block} & {int(s) for s in configured["seeds"]}
    if overlap:
        raise UserError(f"robustness: the seed sets share seeds {sorted(overlap)} with the configured run")
    return {"paper_id": configured["paper_id"], "scale": configured["scale"], "data": configured["data"],
            "configured_seeds": configured["seeds"], "seed_sets": seeds,
            "provenance": {"configured": configured["provenance"]["commit"],
                           "sets": [document["provenance"]["commit"] for document in sets]},
            "claims": [claim_summary(claim, [_claim(document, claim["id"]) for document in sets])
                       for claim in configured["claims"]]}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m neurips26 robustness aggregate")
    parser.add_argument("--configured", type=Path, required=True, help="results/<paper_id>/claims.json")
    parser.add_argument("--sets", type=Path, nargs="+", required=True, help="each seed set's claims.json")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    configured = json.loads(args.configured.read_text())
    write_json(args.output, aggregate(configured, [json.loads(p.read_text()) for p in args.sets]))

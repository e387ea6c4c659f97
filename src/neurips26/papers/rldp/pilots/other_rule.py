"""The training rule not frozen (issue #60 item 1: 'report the other rule beside it'), on the configured seeds:

    python src/neurips26/papers/rldp/pilots/other_rule.py model.plateau=null --llm results/rldp/tables/llm_seeds.csv \
        --out /tmp/rldp_other_rule

Trains one decoder per seed with the given override, runs the same evaluation, and writes tables/main.csv and the
claims' verdicts (the SmolLM2 table is read from the default run: it does not depend on the decoder). Reported in
JOURNAL.md beside the default run; never used for a verdict.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from neurips26.common.pipeline.config import compose
from neurips26.papers.rldp import experiments, paper_claims, tables
from neurips26.papers.rldp import model as M


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("overrides", nargs="*")
    parser.add_argument("--llm", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    cfg = compose("rldp", args.overrides)
    args.out.mkdir(parents=True, exist_ok=True)
    rows, timing, stops = [], [], {}
    for seed in cfg.seeds:
        state, history = experiments.train(cfg, seed)
        stops[seed] = int(history.step.iloc[-1])
        net = M.build(cfg.model, M.n_positions(cfg.task))
        net.load_state_dict(state)
        r, _, t = experiments.run(cfg, seed, net.eval())
        rows.append(r)
        timing.append(t)
    main_table = tables.table_main(pd.concat(rows, ignore_index=True))
    main_table.to_csv(args.out / "main.csv", index=False)
    claims = paper_claims.build(main_table, pd.read_csv(args.llm), tables.table_timing(pd.concat(timing)))
    report = {
        "overrides": args.overrides,
        "stopped_at": stops,
        "claims": {c.id: c.to_json("default", "embedded") for c in claims},
    }
    (args.out / "claims.json").write_text(json.dumps(report, indent=1, default=str))
    for c in report["claims"].values():
        print(c["id"], c["verdict"], c.get("why_inconclusive", ""))


if __name__ == "__main__":
    main()

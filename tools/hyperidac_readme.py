"""Print the hyperidac README's result tables from saved run artifacts (never typed by hand).

    python tools/hyperidac_readme.py RUN_DIR [RUN_DIR ...]

Each RUN_DIR is a copy of results/hyperidac/ after `snakemake --cores 2 results/hyperidac/claims.json` (with its
tables/main.csv, tables/ablation.csv and claims.json). Prints, for the first RUN_DIR, the methods and ablation tables
(seed mean +- sd), then one claims table with every RUN_DIR's verdict, the effects of the criterion (mean +- SE of the
paired per-seed differences), the positive control's verdict, and whether the verdict differs between the RUN_DIRs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

METRICS = (("overall", "overall"), ("cell_balanced", "cell-balanced"), ("worst_cell", "worst cell"),
           ("worst_quarter", "worst quarter"), ("minority_cell", "minority cell"))


def method_table(table: pd.DataFrame) -> str:
    lines = ["| regime | method | " + " | ".join(label for _, label in METRICS) + " |",
             "|---|---|" + "---|" * len(METRICS)]
    for _, row in table.iterrows():
        cells = [f"{row[m]:.3f} ± {row[m + '_sd']:.3f}" for m, _ in METRICS]
        lines.append(f"| {row.regime} | {row.method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _effects(measured: dict) -> str:
    """The criterion's effects as mean ± SE (names with an `_se` partner), else every measured value."""
    paired = [k for k in measured if f"{k}_se" in measured]
    if not paired:
        return ", ".join(f"{k} = {_num(v)}" for k, v in measured.items())
    return ", ".join(f"{k} = {_num(measured[k])} ± {_num(measured[k + '_se'])}" for k in paired)


def _num(v) -> str:
    return "null" if v is None else f"{v:.3f}"


def claims_table(runs: list[tuple[str, dict]]) -> str:
    several = len(runs) > 1
    head = "| claim | " + " | ".join(f"{name}: holds | effect (mean ± SE) | control" for name, _ in runs) + " |"
    head += " flips |" if several else ""
    lines = [head, "|---|" + "---|---|---|" * len(runs) + ("---|" if several else "")]
    ids = [c["id"] for c in runs[0][1]["claims"]]
    for cid in ids:
        cells, verdicts = [], []
        for _, doc in runs:
            claim = next(c for c in doc["claims"] if c["id"] == cid)
            control = claim.get("positive_control")
            verdicts.append(claim["holds"])
            cells.append(f"**{claim['holds']}** | {_effects(claim['measured'])} | "
                         + (f"{control['holds']} ({_effects(control['measured'])})" if control else "-"))
        flips = "yes" if len(set(verdicts)) > 1 else "no"
        lines.append(f"| `{cid}` | " + " | ".join(cells) + (f" | {flips} |" if several else " |"))
    criteria = "; ".join(f"`{c['id']}`: `{c['criterion']}`" for c in runs[0][1]["claims"])
    return "\n".join(lines) + f"\n\nCriteria: {criteria}."


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    dirs = [Path(a) for a in argv]
    runs = []
    for d in dirs:
        doc = json.loads((d / "claims.json").read_text())
        runs.append((f"seeds {', '.join(str(s) for s in doc['seeds'])}", doc))
    first = dirs[0]
    print(f"Methods (`tables/main.csv`, {runs[0][0]}, mean ± sd):\n")
    print(method_table(pd.read_csv(first / "tables" / "main.csv")))
    print(f"\nHyperIDAC ablations (`tables/ablation.csv`, {runs[0][0]}):\n")
    print(method_table(pd.read_csv(first / "tables" / "ablation.csv")))
    print()
    print(claims_table(runs))
    flipped = [c["id"] for c in runs[0][1]["claims"]
               if len({next(x for x in doc["claims"] if x["id"] == c["id"])["holds"] for _, doc in runs}) > 1]
    if len(runs) > 1:
        print(f"\nVerdicts that flip between the seed sets: {', '.join(flipped) if flipped else 'none'}.")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Print the ensemble_mi README's result tables from saved run artifacts (never typed by hand).

    python tools/ensemble_mi_readme.py LABEL=RUN_DIR [LABEL=RUN_DIR ...]

Each RUN_DIR is a copy of results/ensemble_mi/ after `snakemake --cores 2 results/ensemble_mi/claims.json` (with
claims.json and tables/main.csv). Prints one claims table with every RUN_DIR's verdict (and the positive control's),
then per RUN_DIR the real pools' accuracy curves (greedy-MI, top-k, the test-peeking oracle, the best single member)
and the headroom numbers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

REALS = ("imdb", "rt", "bbc")


def _verdict(holds) -> str:
    return "-" if holds is None else ("**yes**" if holds else "no")


def claims_table(runs: dict[str, Path]) -> str:
    loaded = {label: json.loads((path / "claims.json").read_text()) for label, path in runs.items()}
    ids = [c["id"] for c in next(iter(loaded.values()))["claims"]]
    head = "| claim | " + " | ".join(f"holds ({label})" for label in loaded) + " | same verdict |"
    lines = [head, "|---|" + "---|" * (len(loaded) + 1)]
    for cid in ids:
        cells, verdicts = [], set()
        for claims in loaded.values():
            claim = next(c for c in claims["claims"] if c["id"] == cid)
            cell = _verdict(claim["holds"])
            verdicts.add(claim["holds"])
            if claim.get("positive_control"):
                cell += f" (control: {_verdict(claim['positive_control']['holds'])})"
                verdicts.add(("control", claim["positive_control"]["holds"]))
            cells.append(cell)
        lines.append(f"| `{cid}` | " + " | ".join(cells) + f" | {'yes' if len(verdicts) <= 2 else 'NO'} |")
    return "\n".join(lines)


def real_table(path: Path, max_budget: int = 10) -> str:
    main = pd.read_csv(path / "tables" / "main.csv")
    claims = {c["id"]: c for c in json.loads((path / "claims.json").read_text())["claims"]}
    m = claims["greedy_mi_vs_topk_real"]["measured"]
    ctl = (claims["greedy_mi_vs_topk_real"].get("positive_control") or {}).get("measured", {})
    lines = ["| pool | method | " + " | ".join(str(b) for b in range(1, max_budget + 1)) + " |",
             "|---|---|" + "---|" * max_budget]
    notes = []
    for task in REALS:
        part = main[main.task == task]
        if part.empty:
            continue
        for method in ("greedy_mi", "top_k", "oracle"):
            curve = part[part.method == method].set_index("budget").accuracy
            cells = [f"{curve[b]:.3f}" if b in curve else "" for b in range(1, max_budget + 1)]
            lines.append(f"| {task} | {method} | " + " | ".join(cells) + " |")
        single = float(part[part.method == "best_single"].accuracy.iloc[0])
        notes.append(f"{task}: best single {single:.3f}; greedy-MI - top-k min {m[f'{task}_min_gap']:+.3f}, max "
                     f"{m[f'{task}_max_gap']:+.3f} (all budgets); oracle - top-k max "
                     f"{m.get(f'{task}_oracle_minus_topk_max', float('nan')):+.3f}, oracle - best single "
                     f"{m.get(f'{task}_oracle_minus_best_single', float('nan')):+.3f}; greedy-MI set at budget 4 "
                     f"{m[f'{task}_greedy_mi_bits']:.3f} +- {m[f'{task}_greedy_mi_bits_se']:.3f} bits; control min "
                     f"{ctl.get(f'{task}_min_gap', float('nan')):+.3f}, max {ctl.get(f'{task}_max_gap', float('nan')):+.3f}")
    return "\n".join(lines) + "\n\n" + "\n".join(f"* {n}" for n in notes)


def main(argv: list[str]) -> None:
    runs = {}
    for arg in argv:
        label, _, path = arg.partition("=")
        runs[label] = Path(path)
    print(claims_table(runs))
    for label, path in runs.items():
        print(f"\n{label}:\n")
        print(real_table(path))


if __name__ == "__main__":
    main(sys.argv[1:])

"""Markdown tables for the mental_imagery README from a results folder (the final runs' artifacts):

    python tools/mental_imagery_readme.py results/mental_imagery [logs/mental_imagery]

Prints the solve-rate table (mean +- sd over seeds, first-action accuracy), the pooled probe table, the claims table
and, given the logs folder, each job's wall and CPU time from the Snakemake benchmarks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

FAMILIES = ["rush_hour", "sokoban", "jigsaw", "rotation", "tangram", "mean"]


def solve_table(folder: Path) -> str:
    t = pd.read_csv(folder / "tables" / "solve.csv").set_index(["family", "variant"])
    seeds = int(t["seeds"].max())
    lines = ["| family | A | B | C | blind | first action A / majority |", "|---|---|---|---|---|---|"]
    for f in FAMILIES:
        cells = [f"{t.loc[(f, v), 'solve_rate']:.3f} +- {t.loc[(f, v), 'sd']:.3f}" for v in ["A", "B", "C", "blind"]]
        first = f"{t.loc[(f, 'A'), 'first_action']:.3f} / {t.loc[(f, 'blind'), 'first_action']:.3f}"
        lines.append(f"| {f} | " + " | ".join(cells) + f" | {first} |")
    steps = ", ".join(f"{v} {t.loc[('mean', v), 'steps']:.0f}" for v in ["A", "B", "C"])
    runs = pd.concat(pd.read_csv(f) for f in sorted((folder / "runs").glob("seed*_A.csv")))
    pre = runs[runs["metric"] == "pretrain_dev_acc"]
    pre = pre[pre["step"] == pre.groupby("seed")["step"].transform("max")]["value"]
    note = f"; VLM pretraining: description accuracy on the dev start boards {pre.mean():.3f}" if len(pre) else ""
    fam = runs[runs["metric"] == "pretrain_family_acc"].groupby("family")["value"].mean()
    if len(fam):
        note += " (" + ", ".join(f"{f} {fam[f]:.3f}" for f in FAMILIES if f in fam) + ")"
    return "\n".join(lines) + f"\n\n({seeds} seeds; training steps taken, mean over seeds: {steps}{note})"


def probe_table(folder: Path) -> str:
    p = pd.read_csv(folder / "tables" / "probe.csv")
    p = p[p["step"] == 0]
    a = p[p["variant"] == "A"].pivot(index="family", columns="kind", values="acc")
    c = p[(p["variant"] == "C") & (p["kind"] == "given_board")].set_index("family")["acc"]
    kinds = [k for k in ["trained", "copy", "start_only", "untrained", "pretrained", "shuffled", "oracle",
                         "random_code"] if k in a]
    lines = ["| family | " + " | ".join(kinds) + " | given_board (C) |", "|---" * (len(kinds) + 2) + "|"]
    for f in FAMILIES[:-1]:
        lines.append(f"| {f} | " + " | ".join(f"{a.loc[f, k]:.3f}" for k in kinds) + f" | {c.get(f, float('nan')):.3f} |")
    return "\n".join(lines)


def claims_table(folder: Path) -> str:
    doc = json.loads((folder / "claims.json").read_text())
    lines = ["| claim | holds | measured (key values) | positive control |", "|---|---|---|---|"]
    for c in doc["claims"]:
        keys = list(c["measured"].items())[:7]
        measured = ", ".join(f"{k} {round(v, 3) if isinstance(v, float) else v}" for k, v in keys)
        pc = c.get("positive_control")
        control = "" if pc is None else f"{pc['holds']} (" + ", ".join(
            f"{k} {round(v, 3) if isinstance(v, float) else v}" for k, v in pc["measured"].items()) + ")"
        lines.append(f"| `{c['id']}` | {c['holds']} | {measured} | {control} |")
    return "\n".join(lines)


def job_times(logs: Path) -> str:
    rows, cpu = [], 0.0
    for f in sorted((logs / "benchmarks").glob("*.tsv")):
        b = pd.read_csv(f, sep=chr(9)).iloc[0]
        rows.append(f"{f.stem} {b['s']:.0f} / {b['cpu_time']:.0f}")
        cpu += float(b["cpu_time"])
    return (f"Job wall / CPU seconds (Snakemake benchmarks; CPU total {cpu:.0f} s): " + ", ".join(rows))


def main(argv: list[str]) -> None:
    folder = Path(argv[0])
    print(solve_table(folder), probe_table(folder), claims_table(folder), sep="\n\n")
    if len(argv) > 1:
        print("\n" + job_times(Path(argv[1])))


if __name__ == "__main__":
    main(sys.argv[1:])

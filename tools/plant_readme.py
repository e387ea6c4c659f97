"""Markdown tables of the plant README from saved run folders (issue #14):

    python tools/plant_readme.py results/plant_pilot/final_012 results/plant_pilot/final_345

prints, for the first folder, the main / ablation / fraction tables and the per-seed paired differences, then the
verdicts of every folder side by side (claims.json), then the pilot's paired differences if results/plant_pilot/show.txt
exists. Every number is read from the folders' tables/*.csv and claims.json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd


def _pm(row, col, scale=100.0):
    std = row.get(f"{col}_std", float("nan"))
    return f"{row[col] * scale:.1f} +- {std * scale:.1f}" if pd.notna(std) else f"{row[col] * scale:.1f}"


def _seeds(folder: Path) -> str:
    return ", ".join(str(s) for s in json.loads((folder / "claims.json").read_text()).get("seeds", []))


def tables(folder: Path) -> None:
    t = folder / "tables"
    main = pd.read_csv(t / "main.csv")
    print(f"Main (`tables/main.csv`, seeds {_seeds(folder)}; means +- std over seeds; epochs = mean epochs run, best = "
          "mean epoch kept (both = the budget with decoder.stopping: fixed); runs at cap = runs the safety cap "
          "ended (patience rule only):\n")
    print("| backbone | method | macro-F1 | rare macro-F1 | frequent macro-F1 | micro-F1 | P@1 | P@5 | nDCG@5 "
          "| epochs (best) "
          "| runs at cap |\n|---|---|---|---|---|---|---|---|---|---|---|")
    for _, r in main.iterrows():
        print(f"| {r.backbone} | {r.method} | {_pm(r, 'macro_f1')} | {r.macro_f1_rare * 100:.1f} | "
              f"{r.macro_f1_frequent * 100:.1f} | {r.micro_f1 * 100:.1f} | {r.p1 * 100:.1f} | {r.p5 * 100:.1f} | "
              f"{r.ndcg5 * 100:.1f} | {r.epochs:.1f} ({r.best_epoch:.1f}) | {int(r.runs_hit_cap)}/{int(r.runs)} |")
    abl = pd.read_csv(t / "ablation.csv")
    print("\nAblation and positive control, MiniLM (`tables/ablation.csv`; `oracle` = the positive control):\n")
    print("| method | p | macro-F1 | rare macro-F1 | frequent macro-F1 | micro-F1 | epochs | runs at cap |\n"
          "|---|---|---|---|---|---|---|---|")
    for _, r in abl.iterrows():
        print(f"| {r.method} | {r.p:g} | {_pm(r, 'macro_f1')} | {r.macro_f1_rare * 100:.1f} | "
              f"{r.macro_f1_frequent * 100:.1f} | {r.micro_f1 * 100:.1f} | {r.epochs:.1f} | "
              f"{int(r.runs_hit_cap)}/{int(r.runs)} |")
    fr = pd.read_csv(t / "fraction.csv")
    print("\nTraining fraction, MiniLM (`tables/fraction.csv`; gap = PLANT - LAAT macro-F1, +- std over seeds):\n")
    print("| fraction | PLANT macro-F1 | LAAT macro-F1 | gap | gap rare | runs at cap |\n|---|---|---|---|---|---|")
    for _, r in fr.iterrows():
        print(f"| {r.fraction:g} | {r.plant_macro_f1 * 100:.1f} | {r.laat_macro_f1 * 100:.1f} | "
              f"{r.gap_macro_f1 * 100:.1f} +- {r.gap_macro_f1_std * 100:.1f} | {r.gap_macro_f1_rare * 100:.1f} | "
              f"{int(r.runs_hit_cap)} |")
    paired = pd.read_csv(t / "paired.csv").drop(columns=["small_fraction"]).set_index("seed") * 100
    print("\nPaired differences per seed (`tables/paired.csv`, macro-F1 points; X_laat = X - LAAT on the same seed):\n")
    print("| seed | " + " | ".join(paired.columns) + " |\n" + "|---" * (len(paired.columns) + 1) + "|")
    for seed, r in paired.iterrows():
        print(f"| {seed} | " + " | ".join(f"{v:.2f}" for v in r) + " |")


def verdicts(folders: list[Path]) -> None:
    claims = [{c["id"]: c for c in json.loads((f / "claims.json").read_text())["claims"]} for f in folders]
    print("\n| claim | criterion | " + " | ".join(f"seeds {_seeds(f)}" for f in folders)
          + " | positive control (oracle) |\n|---|---|" + "---|" * len(folders) + "---|")
    fmt = lambda m: ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in m.items())  # noqa: E731
    for cid, c in claims[0].items():
        cells = []
        for cs in claims:
            x = cs[cid]
            verdict = {True: "holds", False: "fails", None: "untested"}[x["holds"]]
            cells.append(f"**{verdict}**: {fmt(x['measured'])}")
        ctrl = " / ".join({True: "holds", False: "fails", None: "-"}[cs[cid].get("positive_control", {}).get("holds")]
                          for cs in claims)
        print(f"| {cid} | `{c['criterion']}` | " + " | ".join(cells) + f" | {ctrl} |")
    for i, cs in enumerate(claims):
        for cid, x in cs.items():
            if "positive_control" in x:
                print(f"\n- seeds {_seeds(folders[i])}, {cid} control: {fmt(x['positive_control']['measured'])}")


def benchmarks(folders: list[Path]) -> None:
    """Per job wall / CPU seconds (Snakemake's benchmark files, column cpu_time) and the CPU total of each run."""
    for f in folders:
        if not (f / "benchmarks").is_dir():
            continue
        rows = {b.stem: pd.read_csv(b, sep="\t").iloc[-1] for b in sorted((f / "benchmarks").glob("*.tsv"))}
        jobs = ", ".join(f"{k} {r['s']:.0f} / {r['cpu_time']:.0f}" for k, r in rows.items())
        total = sum(r["cpu_time"] for r in rows.values())
        print(f"\n- seeds {_seeds(f)}, per job (s wall / s CPU): {jobs}; CPU total {total:.0f} s")


if __name__ == "__main__":
    folders = [Path(a) for a in sys.argv[1:]]
    tables(folders[0])
    verdicts(folders)
    benchmarks(folders)

"""wd_eos README tables from the artifacts of one run (run by hand after `snakemake ... results/wd_eos/claims.json`):
the per-grid-point table (seed means from tables/main.csv, steps per seed from tables/traces.csv), the CNN's per-run
amplitude and kernel velocity (tables/runs.csv) and the claims' measured values (claims.json), as Markdown.

    PYTHONPATH=src python tools/wd_eos_readme_tables.py results/wd_eos
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd


def _num(x, digits=3) -> str:
    return "n/a" if pd.isna(x) else f"{x:.{digits}g}"


def grid_table(folder: Path) -> str:
    main = pd.read_csv(folder / "tables" / "main.csv")
    traces = pd.read_csv(folder / "tables" / "traces.csv")
    last = traces.groupby(["arch", "decay", "eta", "wd", "seed"]).step.max()
    head = ["arch", "decay", "2/eta", "lambda", "steps run (per seed)", "sharpening time", "reached 0.9 x 2/eta",
            "EoS onset", "at EoS (seeds)", "EoS window complete", "plateau S", "plateau / (2/eta - lambda)",
            "EoS osc. amplitude (common seeds)", "common seeds", "EoS osc. amplitude (all at EoS)", "std S late",
            "loss osc.", "kernel velocity late", "abs(alpha) late", "final train acc"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    order = {"mlp": 0, "cnn": 1}
    main = main.assign(_o=main.arch.map(order)).sort_values(["_o", "decay", "eta", "wd"])
    for _, r in main.iterrows():
        n = int(r.seeds)
        steps = ", ".join(str(int(v)) for v in last.loc[(r.arch, r.decay, r.eta, r.wd)].sort_index())
        rule = "no rule" if r.arch == "mlp" else f"{round(r.eos_complete_fraction * n)}/{n}"
        cells = [r.arch.upper(), r.decay, _num(2 / r.eta), f"{r.wd:g}", steps, f"{r.sharpening_time:.0f}",
                 f"{round(r.reached_fraction * n)}/{n}", "n/a" if pd.isna(r.eos_onset) else f"{r.eos_onset:.0f}",
                 f"{round(r.eos_reached_fraction * n)}/{n}", rule, f"{r.plateau:.2f}", f"{r.plateau_ratio:.3f}",
                 "n/a" if pd.isna(r.osc_amplitude_common) else f"{r.osc_amplitude_common:.4f}",
                 f"{int(r.eos_common_seeds)}", "n/a" if pd.isna(r.osc_amplitude) else f"{r.osc_amplitude:.4f}",
                 f"{r.osc_std_late:.2f}", "n/a" if pd.isna(r.loss_osc) else f"{r.loss_osc:.4f}",
                 _num(r.kernel_velocity), f"{r.alignment:.3f}", f"{r.final_accuracy:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def per_seed_amplitude(folder: Path) -> str:
    """CNN EoS amplitude and late kernel velocity per run seed and lambda, from tables/runs.csv (the runs the trend
    criterion reads; "no window": no complete EoS window)."""
    runs = pd.read_csv(folder / "tables" / "runs.csv")
    cnn = runs[(runs.arch == "cnn") & (runs.decay == "coupled")].copy()
    cnn["amp"] = cnn.osc_amplitude.where(cnn.eos_complete.astype(bool))
    amp = cnn.pivot(index="seed", columns="wd", values="amp")
    vel = cnn.pivot(index="seed", columns="wd", values="kernel_velocity")
    head = ["seed"] + [f"amp. lambda {w:g}" for w in amp.columns] + [f"velocity lambda {w:g}" for w in vel.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for seed in amp.index:
        cells = ["no window" if pd.isna(v) else f"{v:.4f}" for v in amp.loc[seed]] + [_num(v) for v in vel.loc[seed]]
        lines.append(f"| {seed} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def claims_table(folder: Path) -> str:
    doc = json.loads((folder / "claims.json").read_text())
    lines = [f"seeds {doc['seeds']}, scale {doc['scale']}", "", "| claim | holds | measured | positive control |",
             "|---|---|---|---|"]
    for c in doc["claims"]:
        measured = ", ".join(f"{k} {v}" for k, v in c["measured"].items())
        pc = c.get("positive_control")
        pc_text = "-" if pc is None else f"holds={pc['holds']} ({', '.join(f'{k} {v}' for k, v in pc['measured'].items())})"
        holds = c["holds"] if c["holds"] is not None else f"untested: {c.get('why_untested')}"
        lines.append(f"| {c['id']} | {holds} | {measured} | {pc_text} |")
    return "\n".join(lines)


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "results/wd_eos")
    print(grid_table(root), "\n", per_seed_amplitude(root), "\n", claims_table(root), sep="\n")

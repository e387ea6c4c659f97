"""Print the cytometry_encoder README's pilot and results tables from saved artifacts (never typed by hand).

    python tools/cytometry_encoder_readme_tables.py --runs results/cytometry_encoder /tmp/recheck/results/cytometry_encoder \
        [--pilot /tmp/cyto_pilot/c1_b32_c16/pilot.json /tmp/cyto_pilot/c2_b32_c8/pilot.json] [--logs LOGS_DIR ...]

--runs: the first run's results folder (its tables/tasks.csv is printed) and any further seed sets' (claims only).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

TASKS = ["in_distribution", "novel_panel", "novel_markers_few", "novel_markers_many", "negative_control", "cross_study"]
METHODS = {"frozen": "frozen (MiniLM)", "frozen_hashed": "frozen (hashed)", "specialist": "specialist",
           "random_init": "random-init", "random_init_avg": "random-init (mean of K inits)",
           "quantiles": "quantiles", "leiden_freq": "Leiden freq.", "cytoset": "CytoSet",
           "true_frequencies": "true frequencies (ceiling)"}


def pilot_table(paths: list[Path]) -> str:
    head = ("| candidate | steps | cells / run | end loss | reference | doubling S -> 2S | " + " | ".join(TASKS)
            + " | cross-study gain | s |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for path in paths:
        rep = json.loads(Path(path).read_text())
        p = rep["pretrain"]
        name = f"{p['batch']} x {p['cells']} cells, lr {p['lr']}, clip {p.get('clip', 0)}"
        lines.append(f"| {name}: random-init | – | – | – | – | – | "
                     + " | ".join(f"{rep['random_init'][t]:.3f}" for t in TASKS) + " | – | – |")
        for s in rep["steps"]:
            r = rep[f"steps_{s}"]
            d = rep["doubling"].get(f"{s}->{2 * s}")
            dbl = f"{100 * d['loss_improvement']:.1f} %" if d else "–"
            lines.append(f"| {name} | {s} | {s * p['batch'] * p['cells']:,} | {r['end_loss']:.3f} | "
                         f"{r['end_reference']:.3f} | {dbl} | " + " | ".join(f"{r['auroc'][t]:.3f}" for t in TASKS)
                         + f" | {rep['positive_control_gain'][str(s)]:+.3f} | {r['seconds']} |")
    return "\n".join(lines)


def tasks_table(run: Path) -> str:
    tasks = pd.read_csv(run / "tables/tasks.csv")
    lines = ["| task (taxonomy) | " + " | ".join(METHODS.values()) + " |", "|" + "---|" * (len(METHODS) + 1)]
    for t in TASKS:
        rows = tasks[tasks.task == t].set_index("method")
        cells = [f"{rows.auroc[m]:.3f} ± {rows.auroc_std[m]:.3f}" if m in rows.index else "–" for m in METHODS]
        lines.append(f"| {t} ({rows.taxonomy.iloc[0]}) | " + " | ".join(cells) + " |")
    signal = tasks[~tasks.taxonomy.isin(["negative_control", "positive_control"])]
    means = signal.groupby("method").auroc.mean()
    lines.append("| *mean, 4 signal tasks* | " + " | ".join(f"{means[m]:.3f}" if m in means else "–" for m in METHODS)
                 + " |")
    return "\n".join(lines)


def _fmt(v) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def claims_table(runs: list[Path]) -> str:
    docs = [json.loads((r / "claims.json").read_text()) for r in runs]
    sets = [", ".join(str(s) for s in d["seeds"]) for d in docs]
    head = "| claim | " + " | ".join(f"seeds {s} | measured ({s})" for s in sets) + " |"
    lines = [head, "|" + "---|" * (1 + 2 * len(runs))]
    for i, claim in enumerate(docs[0]["claims"]):
        cells = []
        for d in docs:
            c = d["claims"][i]
            verdict = {True: "**holds**", False: "**fails**", None: "untested"}[c["holds"]]
            if c["holds"] is None and c.get("why_untested", "").startswith("inconclusive"):
                verdict = "**inconclusive**"
            bounded = {k for k in c["measured"] if k.endswith(("_lo", "_hi"))}  # in interval_table
            measured = ", ".join(f"{k} {_fmt(v)}" for k, v in c["measured"].items() if k not in bounded)
            pc = c.get("positive_control")
            if pc:
                measured += f"; positive control {'holds' if pc['holds'] else 'fails'} " \
                            f"({_fmt(pc['measured'].get('control_auroc', float('nan')))})"
            cells += [verdict, measured]
        lines.append(f"| {claim['id']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def interval_table(runs: list[Path]) -> str:
    """The three-valued claims' quantities (those with seed intervals in `measured`): seed mean [lo, hi] per run."""
    docs = [json.loads((r / "claims.json").read_text()) for r in runs]
    sets = [", ".join(str(s) for s in d["seeds"]) for d in docs]
    lines = ["| claim | quantity (per seed, paired) | " + " | ".join(f"seeds {s}: mean [lo, hi]" for s in sets) + " |",
             "|" + "---|" * (2 + len(runs))]
    for i, claim in enumerate(docs[0]["claims"]):
        for name in [k[:-3] for k in claim["measured"] if k.endswith("_lo")]:
            cells = []
            for d in docs:
                m = d["claims"][i]["measured"]
                lo, hi = m.get(name + "_lo"), m.get(name + "_hi")
                if name.endswith("tasks_matched"):  # counts: by the seed means, at the lower / upper bounds
                    cells.append(f"{m[name]:.0f} (lower bounds {lo:.0f}, upper {hi:.0f})" if lo is not None
                                 else f"{m[name]:.0f} (–)")
                else:
                    cells.append(f"{m[name]:+.3f} [{lo:+.3f}, {hi:+.3f}]" if lo is not None and hi is not None
                                 else f"{m[name]:+.3f} [–]")
            lines.append(f"| {claim['id']} | {name} | " + " | ".join(cells) + " |")
        if any(k.endswith("_lo") for k in claim["measured"]):
            verdicts = [{True: "holds", False: "fails", None: "null"}[d["claims"][i]["holds"]] for d in docs]
            lines.append(f"| {claim['id']} | **verdict** | " + " | ".join(f"**{v}**" for v in verdicts) + " |")
    return "\n".join(lines)


def convergence_line(runs: list[Path]) -> str:
    parts = []
    for r in runs:
        m = json.loads((r / "metrics.json").read_text())["pretraining_convergence"]
        seeds = ", ".join(str(s) for s in json.loads((r / "claims.json").read_text())["seeds"])
        parts.append(f"seeds {seeds}: " + "; ".join(
            f"{k.removeprefix('last_window_improvement_')} {100 * v:+.1f} % (loss/ref "
            f"{m['loss_over_reference_' + k.removeprefix('last_window_improvement_')]:.3f})"
            for k, v in m.items() if k.startswith("last_window_improvement_")))
    return "\n".join(parts)


def bench_line(logs: Path) -> str:
    """Per-job wall and CPU seconds of one run (Snakemake's benchmark files), and their sums."""
    jobs = {f.stem: pd.read_csv(f, sep="\t").iloc[-1] for f in sorted((logs / "benchmarks").glob("*.tsv"))}
    parts = [f"{name} {row.s:.0f} / {row.cpu_time:.0f}" for name, row in
             sorted(jobs.items(), key=lambda kv: -kv[1].cpu_time)]
    total_wall, total_cpu = sum(r.s for r in jobs.values()), sum(r.cpu_time for r in jobs.values())
    return (f"{logs}: job wall / CPU s: " + ", ".join(parts)
            + f"; sum {total_wall:.0f} s wall, {total_cpu:.0f} s CPU ({len(jobs)} jobs)")


def diagnostic_table(paths: list[Path]) -> str:
    """The positive-control diagnostic (tools/cytometry_encoder_positive_control_diagnostic.py): per seed and snapshot
    step, the frozen AUROC (signal-task mean, cross_study), the CV R^2 of cross_study's moved populations' true
    frequencies and of all 12, and the study-identity AUROC on cross_study; then the true-frequency ceilings."""
    signal = TASKS[:4]
    head = ("| seed | step | signal-task mean AUROC | cross_study AUROC | cross_study R^2 up / down | cross_study R^2 "
            "mean (12 pops) | signal tasks R^2 up / down (mean) | cross_study study AUROC |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for path in paths:
        rep = json.loads(Path(path).read_text())
        for step, out in rep["snapshots"].items():
            c = out["cross_study"]
            up = sum(out[t]["r2_up"] for t in signal) / 4
            down = sum(out[t]["r2_down"] for t in signal) / 4
            lines.append(f"| {rep['seed']} | {step} | {sum(out[t]['auroc'] for t in signal) / 4:.3f} | {c['auroc']:.3f} "
                         f"| {c['r2_up']:.2f} / {c['r2_down']:.2f} | {c['r2_mean']:.2f} | {up:.2f} / {down:.2f} "
                         f"| {c['study_auroc']:.3f} |")
        o = rep["oracle"]
        lines.append(f"| {rep['seed']} | true frequencies as features | "
                     f"{sum(o[t]['true_frequencies_auroc'] for t in signal) / 4:.3f} | "
                     f"{o['cross_study']['true_frequencies_auroc']:.3f} (moved log-ratio alone: "
                     f"{o['cross_study']['moved_log_ratio_auroc']:.3f}) | – | – | – | – |")
    return "\n".join(lines)


def control_pilot_table(paths: list[Path]) -> str:
    """The fourth pilot (control_pilot.py): per candidate and pilot seed, the design numbers the rule reads (ceiling,
    shared-marker quantiles), the other shared-marker baselines, the K random inits and the pretrained encoder; then
    the rule's verdict (control_pilot.select)."""
    from neurips26.papers.cytometry_encoder.control_pilot import select

    head = ("| candidate (core, effect) | seed | true-freq. ceiling | quantiles (shared) | Leiden (shared) | "
            "CytoSet (shared) | random-init: K inits | mean ± sd | pretrained (900 steps) | pretrained − mean |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    reports = [json.loads(Path(p).read_text()) for p in paths]
    for task in reports[0]["candidates"]:
        for rep in reports:
            r = rep["candidates"][task]
            lines.append(f"| {r['core']}, {r['effect']:g} | {rep['seed']} | {r['ceiling']:.3f} | {r['quantiles']:.3f} | "
                         f"{r['leiden_freq']:.3f} | {r['cytoset']:.3f} | "
                         + " / ".join(f"{v:.3f}" for v in r["random_inits"])
                         + f" | {r['random_init_mean']:.3f} ± {r['random_init_sd']:.3f} | {r['frozen']:.3f} | "
                         f"{r['gain']:+.3f} |")
    rule = select(paths)
    lines += ["", "| candidate | ceiling (mean of seeds) | quantiles (mean) | valid (ceiling >= 0.95, quantiles <= "
              "ceiling - 0.10) |", "|---|---|---|---|"]
    lines += [f"| {r['core']}, {r['effect']:g} | {r['ceiling']:.3f} | {r['quantiles']:.3f} | "
              f"{'yes' if r['valid'] else 'no'} |" for r in rule["candidates"].values()]
    chosen = rule["candidates"].get(rule["chosen"]) if rule["chosen"] else None
    lines.append(f"\nChosen: {chosen['core']}, effect {chosen['effect']:g}" if chosen else "\nChosen: none valid")
    return "\n".join(lines)


def specialist_pilot_table(paths: list[Path]) -> str:
    """The sixth change's pilot (specialist_pilot.py): per pilot seed, budget and evaluation cells, the specialists'
    frozen AUROC per signal task and their mean, the training CPU per run; then the rule (specialist_pilot.select)."""
    from neurips26.papers.cytometry_encoder.specialist_pilot import RULE, select

    reports = [json.loads(Path(p).read_text()) for p in paths]
    tasks = reports[0]["tasks"]
    head = "| seed | steps | cells | " + " | ".join(tasks) + " | mean (signal) | training CPU s / run (mean) |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for rep in reports:
        for steps in rep["steps"]:
            runs = {r["task"]: r for r in rep["runs"] if r["steps"] == steps}
            cpu = sum(r["train_cpu"] for r in runs.values()) / len(runs)
            for c in rep["cells"]:
                values = [runs[t][f"auroc_{c}"] for t in tasks]
                lines.append(f"| {rep['seed']} | {steps} | {c} | " + " | ".join(f"{v:.3f}" for v in values)
                             + f" | {sum(values) / len(values):.3f} | {cpu:.1f} |")
    rule = select(reports)
    steps = reports[0]["steps"]
    cells = reports[0]["cells"]
    lines += ["", "| cells | " + " | ".join(f"A({b})" for b in steps) + " | doubling changes | sufficient (no longer "
              f"budget better by >= {RULE['tolerance']}) |", "|" + "---|" * (len(steps) + 3)]
    for c in cells:
        a = rule["auroc"][c]
        lines.append(f"| {c} | " + " | ".join(f"{a[b]:.4f}" for b in steps) + " | "
                     + ", ".join(f"{k}: {v:+.4f}" for k, v in rule["doubling"][c].items()) + " | "
                     + ", ".join(f"{b}: {'yes' if ok else 'no'}" for b, ok in rule["sufficient"][c].items()) + " |")
    lines.append(f"\nChosen: specialist.steps = {rule['chosen_steps']}; training CPU per run "
                 + ", ".join(f"{b}: {v:.1f} s" for b, v in rule["train_cpu_per_run"].items())
                 + f"; saving {rule['specialist_cpu_saving']:.0f} s of CPU; embedding CPU per task "
                 + ", ".join(f"{c} cells: {v:.3f} s" for c, v in rule["embed_cpu_per_task"].items())
                 + "; estimated quiet wall " + ", ".join(f"{c} cells: {v:.0f} s" for c, v in rule["estimated_wall"].items())
                 + f"; probe.cells = {rule['chosen_cells']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=Path, nargs="*", default=[])
    parser.add_argument("--pilot", type=Path, nargs="*", default=[])
    parser.add_argument("--logs", type=Path, nargs="*", default=[], help="runs' logs/cytometry_encoder folders")
    parser.add_argument("--diagnostic", type=Path, nargs="*", default=[], help="positive-control diagnostic JSONs")
    parser.add_argument("--control-pilot", type=Path, nargs="*", default=[], help="control_pilot.py run JSONs")
    parser.add_argument("--specialist-pilot", type=Path, nargs="*", default=[], help="specialist_pilot.py JSONs")
    args = parser.parse_args()
    if args.specialist_pilot:
        print(specialist_pilot_table(args.specialist_pilot), end="\n\n")
        if not args.runs:
            return
    if args.control_pilot:
        print(control_pilot_table(args.control_pilot), end="\n\n")
        if not args.runs:
            return
    if args.diagnostic:
        print(diagnostic_table(args.diagnostic), end="\n\n")
    if args.pilot:
        print(pilot_table(args.pilot), end="\n\n")
    print(tasks_table(args.runs[0]), end="\n\n")
    print(claims_table(args.runs), end="\n\n")
    print(interval_table(args.runs), end="\n\n")
    print(convergence_line(args.runs))
    for logs in args.logs:
        print(bench_line(logs))


if __name__ == "__main__":
    main()

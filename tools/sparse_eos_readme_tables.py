"""The README's result tables, printed as Markdown from the artifacts only (no number typed by hand):

    python tools/sparse_eos_readme_tables.py RESULTS_DIR [RECHECK_RESULTS_DIR]

RESULTS_DIR holds tables/main.csv, tables/geometry.csv and claims.json of the configured seeds; the optional second
folder holds the same artifacts of the re-check seeds (claims table with both verdicts and a flip column)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd


def _f(v, digits: int = 3) -> str:
    return "NaN" if pd.isna(v) else f"{v:.{digits}f}"


def _net(row) -> str:
    names = {"fc": "FC + wd" if row["wd"] > 0 else "FC", "lc": "LC", "conv": "conv", "ols_global": "LS global",
             "ols_local": "LS local", "ls_local_quad": "LS local quadratic"}
    return names.get(row["arch"], row["arch"])


def _rows(frame: pd.DataFrame, cols: list[tuple[str, callable]]) -> list[str]:
    lines = ["| " + " | ".join(name for name, _ in cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fn(row) for _, fn in cols) + " |" for _, row in frame.iterrows()]
    return lines


def sphere(main: pd.DataFrame) -> list[str]:
    s = main[main["experiment"] == "sphere"]
    return _rows(s, [
        ("block", lambda r: r["block"]), ("d", lambda r: str(int(r["d"]))), ("net", _net),
        ("r", lambda r: str(int(r["r"]))), ("eta", lambda r: f"{r['eta']:g}"),
        ("gap, converged runs (sd all)", lambda r: f"{_f(r['gap_converged'])} ({_f(r['gap_sd'])})"),
        ("train MSE", lambda r: _f(r["train_mse"])), ("test MSE", lambda r: _f(r["test_mse"])),
        ("S / (2/eta)", lambda r: _f(r["sharpness"] / r["threshold"], 2)), ("stable", lambda r: _f(r["stable"], 2)),
        ("converged", lambda r: _f(r["converged"], 2)), ("at target", lambda r: _f(r["hit_target"], 2)),
        ("steps", lambda r: f"{r['steps']:.0f}"), ("WPN / budget", lambda r: f"{_f(r['wpn'], 2)} / {_f(r['budget'], 2)}"),
        ("silent high-norm", lambda r: _f(r["silent_high_norm"], 1))])


def controls(main: pd.DataFrame) -> list[str]:
    c = main[main["experiment"] == "control"]
    return _rows(c, [
        ("block", lambda r: r["block"]), ("inputs", lambda r: "sphere" if r["block"] != "images"
                                          else f"{r['source']} {r['variant']}"),
        ("d", lambda r: str(int(r["d"]))), ("model", _net), ("features r", lambda r: str(int(r["r"]))),
        ("gap", lambda r: _f(r["gap"])), ("train MSE", lambda r: _f(r["train_mse"])),
        ("test MSE", lambda r: _f(r["test_mse"]))])


def images(main: pd.DataFrame) -> list[str]:
    i = main[main["experiment"] == "images"]
    return _rows(i, [
        ("source", lambda r: r["source"]), ("variant", lambda r: r["variant"]), ("net", _net),
        ("gap, converged runs (sd all)", lambda r: f"{_f(r['gap_converged'])} ({_f(r['gap_sd'])})"),
        ("train MSE", lambda r: _f(r["train_mse"])), ("test MSE", lambda r: _f(r["test_mse"])),
        ("S / (2/eta)", lambda r: _f(r["sharpness"] / r["threshold"], 2)), ("stable", lambda r: _f(r["stable"], 2)),
        ("converged", lambda r: _f(r["converged"], 2)), ("at target", lambda r: _f(r["hit_target"], 2)),
        ("steps", lambda r: f"{r['steps']:.0f}")])


def participation(geo: pd.DataFrame) -> list[str]:
    pr = geo[geo["measure"] == "pr"]
    wide = pr.pivot_table(index=["source", "variant"], columns="r", values="value_over_dim", sort=False)
    cols = [("source", lambda r: r.name[0]), ("variant", lambda r: r.name[1])]
    cols += [(f"PR/r^2, r={int(k)}", lambda r, k=k: _f(r[k])) for k in wide.columns]
    lines = ["| " + " | ".join(n for n, _ in cols) + " |", "|" + "---|" * len(cols)]
    return lines + ["| " + " | ".join(fn(row) for _, fn in cols) + " |" for _, row in wide.iterrows()]


def _fmt(measured: dict) -> str:
    return ", ".join(f"{k} = {v:.3g}" if isinstance(v, float) else f"{k} = {v}" for k, v in measured.items())


def claims(first: dict, second: dict | None) -> list[str]:
    """The verdicts of one or two claims.json (contract v2) and their flips."""
    lines = []
    for c in first["claims"]:
        controls = "; ".join(f"{x['kind']} control {x['id']} passed = {x['passed']}" for x in c["controls"])
        tests = "; ".join(f"{t['name']} = {t['estimate']} [{t['ci_low']}, {t['ci_high']}], n = {t['n']}: "
                          f"{t['outcome']}" for t in c["tests"])
        lines.append(f"* **{c['id']}: {c['verdict']}** ({c['criterion']}). {tests or c.get('why_inconclusive', '')}."
                     + (f" {controls}." if controls else ""))
    if second is not None:
        other = {c["id"]: c for c in second["claims"]}
        lines += ["", f"| claim | seeds {first['seeds']} | seeds {second['seeds']} | flip |", "|---|---|---|---|"]
        for c in first["claims"]:
            o = other[c["id"]]
            lines.append(f"| {c['id']} | {c['verdict']} | {o['verdict']} | "
                         f"{'**yes**' if c['verdict'] != o['verdict'] else 'no'} |")
    return lines


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    folders = [Path(a) for a in argv]
    table = pd.read_csv(folders[0] / "tables/main.csv")
    geo = pd.read_csv(folders[0] / "tables/geometry.csv")
    docs = [json.loads((f / "claims.json").read_text()) for f in folders]
    runs = table[table["experiment"].isin(["sphere", "images"])]
    w = runs["seeds"]
    print(f"Seeds {docs[0]['seeds']}: {int((runs['converged'] * w).sum())} of {int(w.sum())} net runs converged "
          f"({int((runs['hit_target'] * w).sum())} at the target).\n")
    for title, lines in (("Sphere", sphere(table)), ("Least-squares controls", controls(table)),
                         ("Images", images(table)), ("Participation ratio over r^2", participation(geo)),
                         ("Claims", claims(docs[0], docs[1] if len(docs) > 1 else None))):
        print(f"{title}:\n")
        print("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Rendering of results/all/index.html: one self-contained page (figures inlined as data URIs, no network loads)."""

from __future__ import annotations

import base64
import json
from html import escape
from pathlib import Path

import pandas as pd

STYLE = """
body{font-family:system-ui,-apple-system,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.85em}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.holds{color:#176317;font-weight:bold}.fails{color:#a01010;font-weight:bold}
.untested{color:#777}figure{display:inline-block;margin:.5em;width:47%;vertical-align:top}
figure img{width:100%;height:auto}figcaption{font-size:.8em;color:#555}
.planned{color:#777}code{background:#f6f6f6;padding:0 .2em}
table.summary td.n{text-align:right}.bar{display:inline-block;height:.7em;vertical-align:middle}
.bar.holds{background:#3a9a3a}.bar.fails{background:#c03030}.bar.untested{background:#bbb}
"""

VERDICT = {True: ("holds", "holds"), False: ("fails", "does not hold"), None: ("untested", "untested")}


def verdict_cell(holds) -> str:
    css, text = VERDICT[holds]
    return f'<td class="{css}">{text}</td>'


def measured_text(measured: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in measured.items())


def control_cell(control: dict | None) -> str:
    """The positive control beside the verdict: the same criterion on a case where the claim must hold."""
    if control is None:
        return "<td class='untested'>none</td>"
    css, text = VERDICT[control["holds"]]
    return (f'<td><span class="{css}">{text}</span><br><small>{escape(control["setting"])}: '
            f"{escape(measured_text(control['measured']))}</small></td>")


def claims_table(document: dict) -> str:
    rows = []
    for claim in document["claims"]:
        measured = measured_text(claim["measured"])
        note = f"<br><i>{escape(claim['why_untested'])}</i>" if claim.get("why_untested") else ""
        rows.append(
            f"<tr><td><code>{escape(claim['id'])}</code></td><td>{escape(claim['statement'])}{note}</td>"
            f"<td>{escape(measured)}</td><td><code>{escape(claim['criterion'])}</code></td>{verdict_cell(claim['holds'])}"
            f"{control_cell(claim.get('positive_control'))}<td>{', '.join(escape(e) for e in claim['evidence'])}</td></tr>"
        )
    columns = ["claim", "statement", "measured", "criterion", "verdict", "positive control", "evidence"]
    head = "<tr>" + "".join(f"<th>{c}</th>" for c in columns) + "</tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def figure_block(path: Path, label: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    caption = f"<figcaption>{escape(label)}</figcaption>"
    return f'<figure><img alt="{escape(label)}" src="data:image/png;base64,{data}">{caption}</figure>'


def csv_block(path: Path, label: str, max_rows: int = 60) -> str:
    frame = pd.read_csv(path)
    shown = frame.head(max_rows)
    more = f"<p><i>{len(frame) - max_rows} more rows in {escape(label)}</i></p>" if len(frame) > max_rows else ""
    return f"<h4>{escape(label)}</h4>" + shown.to_html(index=False, float_format=lambda v: f"{v:.4g}", border=0) + more


def paper_section(paper, results: Path) -> str:
    base = results / paper.id
    document = json.loads((base / "claims.json").read_text())
    parts = [
        f'<h2 id="{paper.id}">{paper.seed_index}. {escape(paper.title)} <small>(<code>{paper.id}</code>)</small></h2>',
        f"<p>scale <code>{document['scale']}</code>, data <code>{document['data']}</code>, seeds "
        f"<code>{document['seeds']}</code></p>",
        claims_table(document),
        *(figure_block(base / f, f) for f in paper.figures),
        *(csv_block(base / t, t) for t in paper.tables),
    ]
    return "\n".join(parts)


def verdict_bar(held: int, failed: int, untested: int) -> str:
    """A small stacked bar of the claim verdicts (inline CSS widths, no script, no network)."""
    return "".join(f'<span class="bar {css}" style="width:{8 * n}px" title="{n} {css}"></span>'
                   for css, n in (("holds", held), ("fails", failed), ("untested", untested)) if n)


def summary_table(rows: list[dict]) -> str:
    """One row per paper of the registry: status, verdict counts, the last run's compute time, a link to its section."""
    head = ("<tr><th>#</th><th>paper</th><th>status</th><th>scale</th><th>hold</th><th>do not hold</th>"
            "<th>untested</th><th>verdicts</th><th>job time (s)</th></tr>")
    body = []
    for row in rows:
        name = escape(row["title"])
        link = f'<a href="#{row["id"]}">{name}</a>' if row["status"] == "implemented" else name
        if row["status"] != "implemented":
            body.append(f'<tr class="planned"><td class="n">{row["seed_index"]}</td><td>{link} <code>{row["id"]}</code>'
                        f"</td><td>{row['status']}</td><td colspan=6></td></tr>")
            continue
        seconds = "" if row["seconds"] is None else f"{row['seconds']:.0f}"
        body.append(f'<tr><td class="n">{row["seed_index"]}</td><td>{link} <code>{row["id"]}</code></td>'
                    f'<td>implemented</td><td>{row["scale"]}</td><td class="n holds">{row["held"]}</td>'
                    f'<td class="n fails">{row["failed"]}</td><td class="n untested">{row["untested"]}</td>'
                    f'<td>{verdict_bar(row["held"], row["failed"], row["untested"])}</td><td class="n">{seconds}</td></tr>')
    note = ("<p><small>job time: the summed wall seconds of the paper's jobs in their last run (Snakemake benchmark "
            "files under <code>logs/&lt;paper_id&gt;/benchmarks/</code>).</small></p>")
    return f'<table class="summary">{head}{"".join(body)}</table>{note}'


def page(sections: list[str], planned: list, summary: str, overview: str = "") -> str:
    planned_rows = "".join(f'<li class="planned">{p.seed_index}. {escape(p.title)} (<code>{p.id}</code>): planned</li>'
                           for p in planned)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>neurips26 results</title>"
        f"<style>{STYLE}</style></head><body><h1>neurips26: reproduced claims</h1><p>{summary}</p>"
        + overview
        + "\n".join(sections)
        + (f"<h2>Planned papers</h2><ul>{planned_rows}</ul>" if planned else "")
        + "</body></html>\n"
    )

"""Rendering of results/all/index.html: one self-contained page (figures inlined as data URIs, no network loads)."""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

import pandas as pd

STYLE = """
body{font-family:system-ui,-apple-system,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.85em}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.holds{color:#176317;font-weight:bold}.fails{color:#a01010;font-weight:bold}
.inconclusive{color:#8a6d00;font-weight:bold}.sanity{color:#555}
figure{display:inline-block;margin:.5em;width:47%;vertical-align:top}
figure img{width:100%;height:auto}figcaption{font-size:.8em;color:#555}
.planned{color:#777}code{background:#f6f6f6;padding:0 .2em}
table.summary td.n{text-align:right}.bar{display:inline-block;height:.7em;vertical-align:middle}
.unstable{color:#a01010;font-weight:bold}.robustness{font-weight:normal;color:#333}
.bar.holds{background:#3a9a3a}.bar.fails{background:#c03030}.bar.inconclusive{background:#d4b000}
.banner{background:#fff3cd;border:2px solid #d4a000;padding:.6em 1em;font-weight:bold}
.provenance td{font-size:.9em}.why{color:#6b5400;font-style:italic}
"""

# Shows only the claim rows of the chosen verdict (inline: the page loads nothing from the network).
FILTER_SCRIPT = """<script>
function filterVerdict(v){document.querySelectorAll('tr.claim').forEach(function(r){
r.style.display=(v==='all'||r.dataset.verdict===v)?'':'none';});}
</script>"""
FILTER = ('<p>Show claims: <select id="verdict-filter" onchange="filterVerdict(this.value)">'
          '<option value="all">all</option><option value="holds">holds</option><option value="fails">fails</option>'
          '<option value="inconclusive">inconclusive</option><option value="sanity">sanity checks</option>'
          "</select></p>")
SCALE_NOTE = {"tiny": "scale=tiny is plumbing only: its verdicts are not results (every claim is decided at a larger "
                      "scale, so they are inconclusive)",
              "long": "scale=long: the deciding budgets for the claims default cannot decide"}


def _number(value) -> str:
    return "-" if value is None else f"{value:.4g}" if isinstance(value, float) else escape(str(value))


def statistic_text(statistic: dict | None) -> str:
    """`name = estimate [low, high] (n = k)`, or the rule's estimate; the bound and side when the test has one."""
    if not statistic:
        return "<span class='sanity'>no statistic</span>"
    text = f"{escape(statistic['name'])} = {_number(statistic['estimate'])}"
    if statistic.get("ci_low") is not None:
        text += (f" <span title='{statistic['level']:.0%} t interval, n - 1 df'>[{_number(statistic['ci_low'])}, "
                 f"{_number(statistic['ci_high'])}]</span>, n = {statistic['n']}")
    if "side" in statistic:
        text += f"<br><small>claim: {statistic['side']} {escape(str(statistic['bound']))}</small>"
    return text


def tests_text(claim: dict) -> str:
    return "<br>".join(f"{statistic_text(t)} <small>({t['outcome']})</small>" for t in claim["tests"]) or "-"


def per_seed_block(per_seed: dict) -> str:
    """The per-seed values behind the statistics, folded (shown on demand)."""
    if not per_seed:
        return ""
    names = sorted({n for values in per_seed.values() for n in values})
    head = "<tr><th>seed</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"
    rows = "".join(f"<tr><td>{seed}</td>" + "".join(f"<td>{_number(v.get(n))}</td>" for n in names) + "</tr>"
                   for seed, v in per_seed.items())
    return f"<details><summary>per seed</summary><table>{head}{rows}</table></details>"


def controls_cell(controls: list[dict]) -> str:
    if not controls:
        return "<td class='sanity'>none</td>"
    items = []
    for control in controls:
        state = {True: ("holds", "passed"), False: ("fails", "FAILED"), None: ("inconclusive", "missing")}[
            control["passed"]]
        test = f"<br><small>{statistic_text(control.get('test'))}</small>" if control.get("test") else ""
        items.append(f"{control['kind']} <code>{escape(control['id'])}</code>: <span class='{state[0]}'>{state[1]}"
                     f"</span><br><small>{escape(control['setting'])}</small>{test}")
    return "<td>" + "<hr>".join(items) + "</td>"


def paper_value_text(value: dict) -> str:
    shown = "" if value["value"] is None else f"{_number(value['value'])}<br>"
    return f"{shown}<small>{escape(value['where'])}</small>"


def robustness_text(robustness: dict | None) -> str:
    """"holds in k/K" seed sets, and `unstable` when the configured run and the sets do not all agree."""
    if not robustness:
        return ""
    unstable = "" if robustness["stable"] else " <span class='unstable'>unstable</span>"
    sets = ", ".join(robustness["set_verdicts"])
    return (f"<br><span class='robustness' title='verdicts on the seed sets: {escape(sets)}'>holds in "
            f"{robustness['holds_in']}/{robustness['sets']} seed sets</span>{unstable}")


def verdict_cell(claim: dict) -> str:
    why = f"<br><span class='why'>{escape(claim['why_inconclusive'])}</span>" if claim.get("why_inconclusive") else ""
    return f"<td class='{claim['verdict']}'>{claim['verdict']}{robustness_text(claim.get('robustness'))}{why}</td>"


def claims_table(document: dict) -> str:
    """Claims first, then the sanity checks; each row carries its verdict for the filter."""
    rows = []
    paper_id = document["paper_id"]
    for claim in sorted(document["claims"], key=lambda c: c["kind"] != "claim"):
        evidence = ", ".join(f'<a href="../{paper_id}/{escape(e)}">{escape(e)}</a>' for e in claim["evidence"])
        verdict = "sanity" if claim["kind"] == "sanity" else claim["verdict"]
        kind = " <small class='sanity'>(sanity check)</small>" if claim["kind"] == "sanity" else ""
        rows.append(
            f'<tr class="claim" data-verdict="{verdict}"><td><code>{escape(claim["id"])}</code>{kind}</td>'
            f"<td>{escape(claim['statement'])}<br><small>{escape(claim['criterion'])}</small></td>"
            f"<td>{tests_text(claim)}{per_seed_block(claim['per_seed'])}</td><td>{paper_value_text(claim['paper_value'])}"
            f"</td>{controls_cell(claim['controls'])}{verdict_cell(claim)}<td>{escape(claim['decided_at'])}"
            f"{' (real data)' if claim.get('decided_data') else ''}</td><td>{evidence}</td></tr>")
    columns = ["claim", "statement and test", "ours (95% t interval)", "paper", "controls", "verdict", "decided at",
               "evidence"]
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


def paper_section(paper, results: Path, document: dict) -> str:
    base = results / paper.id
    parts = [
        f'<h2 id="{paper.id}">{paper.seed_index}. {escape(paper.title)} <small>(<code>{paper.id}</code>)</small></h2>',
        f"<p>scale <code>{document['scale']}</code>, data <code>{document['data']}</code>, seeds "
        f"<code>{document['seeds']}</code>, commit <code>{escape(str(document['provenance']['commit'])[:12])}</code>; "
        f'<a href="../{paper.id}/config.yaml">resolved config</a>, <a href="../{paper.id}/claims.json">claims.json</a>'
        "</p>",
        claims_table(document),
        *(figure_block(base / f, f) for f in paper.figures),
        *(csv_block(base / t, t) for t in paper.tables),
    ]
    return "\n".join(parts)


def verdict_bar(counts: dict) -> str:
    """A small stacked bar of the claim verdicts (inline CSS widths, no script, no network)."""
    return "".join(f'<span class="bar {v}" style="width:{8 * counts[v]}px" title="{counts[v]} {v}"></span>'
                   for v in ("holds", "fails", "inconclusive") if counts[v])


def summary_table(rows: list[dict]) -> str:
    """One row per paper of the registry: status, verdict counts (claims; sanity checks apart), the last run's compute
    time, a link to its section."""
    head = ("<tr><th>#</th><th>paper</th><th>status</th><th>scale</th><th>holds</th><th>fails</th>"
            "<th>inconclusive</th><th>sanity</th><th>verdicts</th><th>job time (s)</th></tr>")
    body = []
    for row in rows:
        name = escape(row["title"])
        link = f'<a href="#{row["id"]}">{name}</a>' if row["status"] == "implemented" else name
        if row["status"] != "implemented":
            body.append(f'<tr class="planned"><td class="n">{row["seed_index"]}</td><td>{link} <code>{row["id"]}</code>'
                        f"</td><td>{row['status']}</td><td colspan=7></td></tr>")
            continue
        seconds = "" if row["seconds"] is None else f"{row['seconds']:.0f}"
        counts = "".join(f'<td class="n {v}" data-count="{v}">{row["counts"][v]}</td>'
                         for v in ("holds", "fails", "inconclusive", "sanity"))
        body.append(f'<tr data-paper="{row["id"]}"><td class="n">{row["seed_index"]}</td><td>{link} '
                    f'<code>{row["id"]}</code></td><td>implemented</td><td>{row["scale"]}</td>{counts}'
                    f'<td>{verdict_bar(row["counts"])}</td><td class="n">{seconds}</td></tr>')
    note = ("<p><small>holds / fails / inconclusive count the paper's claims (a 95% t interval over seeds on the "
            "claim's side of its bound, on the other side, or straddling it; a failed or missing control, or a claim "
            "decided at a larger scale, is inconclusive); sanity checks hold by construction and are never counted as "
            "reproduced. job time: the summed wall seconds of the paper's jobs in their last run.</small></p>")
    return f'<table class="summary">{head}{"".join(body)}</table>{note}'


def provenance_block(documents: list[dict]) -> str:
    """The run's provenance (from the papers' claims.json) and a banner when the scale is not default or paper."""
    if not documents:
        return ""
    first = documents[0]["provenance"]
    scales = sorted({d["scale"] for d in documents})
    commits = sorted({str(d["provenance"]["commit"]) for d in documents})
    dirty = any(d["provenance"]["dirty"] for d in documents)
    rows = [("commit", ", ".join(c[:12] for c in commits) + (" (tree dirty)" if dirty else "")),
            ("scale", ", ".join(scales)), ("data", ", ".join(sorted({d["data"] for d in documents}))),
            ("seeds", ", ".join(sorted({str(d["seeds"]) for d in documents}))), ("python", first["python"]),
            ("packages", ", ".join(f"{k} {v}" for k, v in first["packages"].items()))]
    table = "".join(f"<tr><th>{k}</th><td>{escape(str(v))}</td></tr>" for k, v in rows)
    odd = [s for s in scales if s not in ("default", "paper")]
    banner = "".join(f'<p class="banner" id="scale-banner">{escape(SCALE_NOTE.get(s, s))}</p>' for s in odd)
    return f'{banner}<table class="provenance">{table}</table>'


def page(sections: list[str], planned: list, summary: str, overview: str = "", provenance: str = "") -> str:
    planned_rows = "".join(f'<li class="planned">{p.seed_index}. {escape(p.title)} (<code>{p.id}</code>): planned</li>'
                           for p in planned)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>neurips26 results</title>"
        f"<style>{STYLE}</style>{FILTER_SCRIPT}</head><body><h1>neurips26: reproduced claims</h1>{provenance}"
        f"<p>{summary}</p>"
        + overview + FILTER
        + "\n".join(sections)
        + (f"<h2>Planned papers</h2><ul>{planned_rows}</ul>" if planned else "")
        + "</body></html>\n"
    )

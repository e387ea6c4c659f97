"""A generated long-document QA benchmark (docscope, docatlas): PDFs, element records, questions with gold evidence.

What this module provides:

- `generate(out_dir, spec, seed)`: writes `docs/<doc_id>.pdf` (20-40 pages of annual-report prose, tables and bar charts,
  built with `common.documents.PdfBuilder`), `elements.jsonl` (every laid-out element: doc_id, page, box, text),
  `questions.jsonl` and `documents.json` (page counts and sha256 of every PDF). Same spec and seed -> byte-identical files.
- `load(out_dir)`: reads them back, checks the PDFs' sha256, and raises a clear `UserError` on anything malformed.
- `real_questions(manuals, n, seed)`: questions over real long PDFs (the Debian r-doc-pdf R manuals) whose gold evidence
  comes from the documents' own structure (the PDF outline: section titles and the pages they start on).
- `clusters(pages, gap)`, `distance(pages)`, `distance_bin(d, edges)`: the dispersion measures of a question's evidence.

The world of a document: an organisation with divisions; a grid of facts (division, metric, year) -> integer value. Each
fact appears in at most ONE element (a paragraph stating it, a division's key-figure table, or a division's bar chart over
years), so every answerable question has a unique gold evidence set. Questions (same metric and year, k divisions):
k=1 lookup ("What was the shipments of the Coastal division in 2019?"), k=2 difference, k=2..4 highest ("Which of ...?"),
k=3..4 total. Evidence pages are drawn for a target (number of clusters, distance bin); each evidence item records page,
element_id, bbox (PDF points, top-left origin, common/docbench/documents.py), the element kind, the gold fact sentence and
value. Unanswerable questions ask a lookup of a fact the document never states (answer "Unanswerable", no evidence).

Chain extension (docatlas; `generate(..., chains=Chains(...))`, off by default): the world gains projects, each run by one
division ("Project Falcon is run by the Coastal division.", one paragraph each, plus a distractor "Project Falcon received
feedback from the Inland division."), and two-hop chain questions "What was the shipments of the division that runs
Project Falcon in 2019?" (op "chain"; evidence: the project paragraph, then the fact, on two different pages). Without
`chains` nothing changes: no extra random draws, no extra keys, byte-identical files (pinned by a unit test).

Distractor extension (docatlas; `generate(..., distractors=Distractors(per_fact=n))`, off by default): for every fact a
question asks (chain facts included), n paragraphs on OTHER pages that reuse the fact's division, metric, unit and year
with a different, wrong value in a non-fact framing (an analyst expectation, a target, a forecast made that year, an early
estimate, an earlier plan's projection; `DISTRACTOR_TEMPLATES`). They never use the fact sentence's framing ("In <year>,
the <division> division reported <metric> of ..."), so a reader that checks the framing rejects them, while a retrieval
with the question's words finds them as readily as the fact. Element: a paragraph with meta `{"facts": [], "distracts":
[division, metric, year], "value": wrong value}`. Without `distractors`: no extra draws, byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from neurips26.common.docbench.documents import Element, PdfBuilder, page_count, page_lines
from neurips26.common.pipeline.artifacts import write_json, write_text
from neurips26.common.pipeline.errors import UserError

UNANSWERABLE = "Unanswerable"
DIVISIONS = [
    "Northern", "Southern", "Eastern", "Western", "Coastal", "Inland", "Harbor", "Valley", "Delta", "Highland",
    "Central", "Riverside",
]  # fmt: skip
METRICS = [
    ("revenue", "thousand dollars"),
    ("shipments", "containers"),
    ("staff", "employees"),
    ("energy use", "megawatt hours"),
    ("incidents", "reports"),
    ("water use", "cubic metres"),
    ("maintenance cost", "thousand dollars"),
]
YEARS = list(range(2014, 2023))
ORG_A = ["Velmora", "Castran", "Orlind", "Brevik", "Talsen", "Marrow", "Quillon", "Estera", "Holm", "Dravos"]
ORG_B = ["Port Authority", "Water Board", "Transit Company", "Energy Cooperative", "Logistics Group", "Rail Trust"]
FILLER = [
    "The {d} division continued its review of {m} reporting practices and consulted staff representatives.",
    "Management of the {d} division met with regional partners to discuss long-term planning and procurement.",
    "An external audit of the {d} division found the records of {m} complete and consistently kept.",
    "The board noted that the {d} division relies on shared services for payroll, legal advice and training.",
    "Work on the information systems of the {d} division was delayed by supplier changes during the year.",
    "The {d} division published a summary of its safety programme and invited comments from the public.",
    "Several projects in the {d} division were rescheduled to align with the capital budget cycle.",
    "The committee asked the {d} division to report {m} figures in the same format as the other divisions.",
    "Community meetings were held in the {d} area to explain the changes to service schedules.",
    "The organisation reviewed its governance framework and updated the charter of the audit committee.",
    "Staff surveys showed steady satisfaction with training opportunities and internal communication.",
    "The environmental plan sets targets for emissions, waste and land use over the next decade.",
    "Procurement rules were simplified and a new register of contracts was opened to the public.",
    "The annual planning cycle starts with division proposals and ends with approval by the board.",
]


@dataclass
class Spec:
    """What to generate. Sizes only; the world vocabulary is fixed above."""

    n_docs: int = 12
    pages_min: int = 20
    pages_max: int = 40
    questions_per_doc: int = 17
    unanswerable_fraction: float = 0.1
    divisions_per_doc: int = 6
    evidence_kinds: dict = field(default_factory=lambda: {"paragraph": 0.5, "table": 0.25, "chart": 0.25})
    distance_edges: list = field(default_factory=lambda: [2, 8])  # bins: d <= 2 near, <= 8 mid, else far
    cluster_gap: int = 1  # evidence pages at most this far apart form one cluster
    max_evidence_per_page: int = 3
    # docscope (issue #58): every (clusters, distance bin, operation) cell of each k >= 2 in turn instead of drawn at
    # random, continued across documents, so every feasible cell is filled within k; False keeps the random draw
    balanced_cells: bool = False

    @classmethod
    def from_config(cls, cfg) -> Spec:
        known = {k: cfg[k] for k in cls.__dataclass_fields__ if k in cfg}
        spec = cls(
            **{k: (dict(v) if k == "evidence_kinds" else list(v) if k == "distance_edges" else v) for k, v in known.items()}
        )
        if not 1 <= spec.pages_min <= spec.pages_max:
            raise UserError(f"benchmark: need 1 <= pages_min <= pages_max, got {spec.pages_min}, {spec.pages_max}")
        if not 0 <= spec.unanswerable_fraction < 1:
            raise UserError(f"benchmark: unanswerable_fraction must be in [0, 1), got {spec.unanswerable_fraction}")
        if spec.divisions_per_doc < 4 or spec.divisions_per_doc > len(DIVISIONS):
            raise UserError(f"benchmark: divisions_per_doc must be in 4..{len(DIVISIONS)}")
        return spec


PROJECTS = [
    "Falcon", "Granite", "Juniper", "Lantern", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quasar", "Rampart",
    "Sextant", "Tundra", "Vanguard", "Willow", "Zenith", "Beacon", "Cobalt", "Ember",
]  # fmt: skip


@dataclass
class Chains:
    """The chain extension (docatlas): projects per document and two-hop chain questions per document (added after the
    spec's questions); every project is stated once, with one distractor sentence naming another division."""

    projects_per_doc: int = 8
    questions_per_doc: int = 5

    def __post_init__(self):
        if not 0 <= self.questions_per_doc <= self.projects_per_doc <= len(PROJECTS):
            raise UserError(
                f"benchmark chains: need 0 <= questions_per_doc <= projects_per_doc <= {len(PROJECTS)}, "
                f"got {self.questions_per_doc}, {self.projects_per_doc}"
            )


DISTRACTOR_TEMPLATES = [
    "Analysts had expected the {d} division to report {m} of {v} {u} in {y}.",
    "For {y}, the {d} division had set a target for {m} of {v} {u}.",
    "In {y}, the {d} division forecast {m} of {v} {u} for the following year.",
    "An early estimate put the {m} of the {d} division in {y} at {v} {u}, before the final count.",
    "The plan of {y0} projected that the {d} division would report {m} of {v} {u} in {y}.",
]


@dataclass
class Distractors:
    """The distractor extension (docatlas): `per_fact` non-fact paragraphs per asked fact, on other pages, at most
    `per_page` on one page (beside the spec's max_evidence_per_page facts)."""

    per_fact: int = 2
    per_page: int = 6

    def __post_init__(self):
        if self.per_fact < 0 or self.per_page < 1:
            raise UserError(
                f"benchmark distractors: need per_fact >= 0, per_page >= 1, got {self.per_fact}, {self.per_page}"
            )


def distractor_sentence(template: int, division: str, metric: str, year: int, value: int) -> str:
    return DISTRACTOR_TEMPLATES[template].format(
        d=division, m=metric, u=dict(METRICS)[metric], y=year, v=_fmt_value(value), y0=year - 2
    )


# ---- dispersion measures -----------------------------------------------------------------------------------------
def clusters(pages: list[int], gap: int = 1) -> int:
    """Number of groups of evidence pages when pages at most `gap` apart are joined (0 for no pages)."""
    p = sorted(set(pages))
    return 0 if not p else 1 + sum(1 for a, b in zip(p, p[1:]) if b - a > gap)


def distance(pages: list[int]) -> int:
    return max(pages) - min(pages) if pages else 0


def distance_bin(d: int, edges: list[int]) -> str:
    names = ["near", "mid", "far"]
    for name, edge in zip(names, edges):
        if d <= edge:
            return name
    return names[len(edges)] if len(edges) < len(names) else f"gt{edges[-1]}"


# ---- facts and text ----------------------------------------------------------------------------------------------
def fact_sentence(division: str, metric: str, year: int, value: int) -> str:
    unit = dict(METRICS)[metric]
    return f"In {year}, the {division} division reported {metric} of {value:,} {unit}."


def project_sentence(project: str, division: str) -> str:
    return f"Project {project} is run by the {division} division."


def chain_question(project: str, metric: str, year: int) -> str:
    return f"What was the {metric} of the division that runs Project {project} in {year}?"


def _fmt_value(value: int) -> str:
    return f"{value:,}"


def _question(op: str, divisions: list[str], metric: str, year: int) -> str:
    if op == "lookup":
        return f"What was the {metric} of the {divisions[0]} division in {year}?"
    if op == "difference":
        a, b = divisions
        return f"By how much did the {metric} of the {a} division exceed that of the {b} division in {year}?"
    names = ", ".join(divisions[:-1]) + " and " + divisions[-1]
    if op == "total":
        return f"What was the combined {metric} of the {names} divisions in {year}?"
    if op == "highest":
        return f"Which of the {names} divisions reported the highest {metric} in {year}?"
    raise ValueError(op)


def answer_of(op: str, divisions: list[str], values: list[int]) -> str:
    if op == "lookup":
        return str(values[0])
    if op == "difference":
        return str(values[0] - values[1])
    if op == "total":
        return str(sum(values))
    if op == "highest":
        return divisions[int(np.argmax(values))]
    raise ValueError(op)


# ---- planning ----------------------------------------------------------------------------------------------------
def _evidence_pages(rng, k: int, n_pages: int, target_clusters: int, target_bin: str, spec: Spec) -> list[int] | None:
    """k pages (not necessarily distinct) with exactly `target_clusters` clusters in distance bin `target_bin`, or None."""
    for _ in range(200):
        if target_clusters == 1:
            start = int(rng.integers(2, n_pages))
            pages = sorted(int(min(n_pages, start + rng.integers(0, spec.cluster_gap + 1))) for _ in range(k))
        else:
            anchors = sorted(int(a) for a in rng.choice(np.arange(2, n_pages + 1), size=target_clusters, replace=False))
            pages = sorted(anchors + [int(rng.choice(anchors)) for _ in range(k - target_clusters)])
        if (
            clusters(pages, spec.cluster_gap) == target_clusters
            and distance_bin(distance(pages), spec.distance_edges) == target_bin
        ):
            return pages
    return None


def _plan_targets(rng, n_questions: int, spec: Spec, doc_index: int = 0) -> list[tuple | None]:
    """(k, clusters, distance bin) per question, balanced over the feasible combinations; None = unanswerable. With
    `spec.balanced_cells` the targets are (k, clusters, bin, op): within k the cells are taken in turn, the turn
    continuing from document to document (`doc_index`), so each cell gets its share."""
    n_unans = int(round(spec.unanswerable_fraction * n_questions))
    combos = [(1, 1, "near")]
    for k in (2, 3, 4):
        combos += [(k, 1, "near")]
        for c in range(2, k + 1):
            combos += [(k, c, b) for b in ("near", "mid", "far") if not (b == "near" and c > 2)]
    by_k: dict = {}
    for combo in combos:
        by_k.setdefault(combo[0], []).append(combo)
    if spec.balanced_cells:
        ops = {1: ["lookup"], 2: ["difference", "highest"], 3: ["total", "highest"], 4: ["total", "highest"]}
        by_k = {k: [(*c, op) for c in cells for op in ops[k]] for k, cells in by_k.items()}
    ks = sorted(by_k)
    n_answerable = max(n_questions - n_unans, 0)
    picks = []
    for i in range(n_answerable):  # k cycles over 1..4; the (clusters, bin) combo is drawn within k
        options = by_k[ks[i % len(ks)]]
        if spec.balanced_cells:
            n_k = len(range(i % len(ks), n_answerable, len(ks)))  # questions of this k in one document
            picks.append(options[(doc_index * n_k + i // len(ks)) % len(options)])
        else:
            picks.append(options[int(rng.integers(len(options)))])
    out: list = list(picks) + [None] * n_unans
    rng.shuffle(out)
    return out


@dataclass
class _Placement:
    kind: str
    division: str
    facts: list  # [(division, metric, year)]
    page: int
    element: Element | None = None
    distract: tuple | None = None  # the distractor extension: (fact, wrong value, template index)


def _build_doc(
    doc_id: str,
    rng,
    spec: Spec,
    pdf_path: Path,
    chains: Chains | None = None,
    distractors: Distractors | None = None,
    doc_index: int = 0,
) -> tuple[list[Element], list[dict], dict]:
    n_pages = int(rng.integers(spec.pages_min, spec.pages_max + 1))
    divisions = [str(d) for d in rng.choice(DIVISIONS, size=spec.divisions_per_doc, replace=False)]
    org = f"{rng.choice(ORG_A)} {rng.choice(ORG_B)}"
    metric_names = [m for m, _ in METRICS]
    values = {
        (d, m, y): int(rng.integers(100, 10000)) for d in divisions for m in metric_names for y in YEARS
    }  # the fact grid
    used: set = set()
    placements: list[_Placement] = []
    per_page: dict[int, int] = {}
    questions: list[dict] = []

    def place(fact, page) -> _Placement | None:
        """Put `fact` in a new element on `page` (kind drawn from spec.evidence_kinds); mark every fact it states used."""
        kinds, probs = zip(*spec.evidence_kinds.items())
        kind = str(rng.choice(kinds, p=np.asarray(probs, float) / sum(probs)))
        d, m, y = fact
        if kind == "table":
            ms = [m] + [str(x) for x in rng.choice([x for x in metric_names if x != m], size=2, replace=False)]
            ys = sorted([y] + [int(x) for x in rng.choice([x for x in YEARS if x != y], size=2, replace=False)])
            facts = [(d, mm, yy) for mm in ms for yy in ys]
        elif kind == "chart":
            lo = int(np.clip(y - rng.integers(0, 4), YEARS[0], YEARS[-1] - 3))
            facts = [(d, m, yy) for yy in range(lo, lo + 4)]
        else:
            facts = [fact]
        if any(f in used for f in facts):
            kind, facts = "paragraph", [fact]
        used.update(facts)
        per_page[page] = per_page.get(page, 0) + 1
        p = _Placement(kind, d, facts, page)
        placements.append(p)
        return p

    targets = _plan_targets(rng, spec.questions_per_doc, spec, doc_index)
    for qi, target in enumerate(targets):
        qid = f"{doc_id}_q{qi:02d}"
        if target is None:  # unanswerable: a lookup of a fact the document never states (checked after placement)
            questions.append({"qid": qid, "_unanswerable": True})
            continue
        k, c, b = target[:3]
        for _attempt in range(50):
            m = str(rng.choice(metric_names))
            y = int(rng.choice(YEARS))
            ds = [str(x) for x in rng.choice(divisions, size=k, replace=False)]
            facts = [(d, m, y) for d in ds]
            pages = _evidence_pages(rng, k, n_pages, c, b, spec)
            if pages is None or any(f in used for f in facts):
                continue
            if any(per_page.get(p, 0) + pages.count(p) > spec.max_evidence_per_page for p in set(pages)):
                continue
            order = rng.permutation(k)  # which division sits on which page
            evid = {facts[i]: place(facts[i], pages[j]) for j, i in enumerate(order)}
            if len(target) == 4:  # balanced cells: the planned operation
                op = target[3]
            elif k == 1:
                op = "lookup"
            elif k == 2:
                op = str(rng.choice(["difference", "highest"]))
            else:
                op = str(rng.choice(["total", "highest"]))
            if op == "difference" and values[facts[0]] < values[facts[1]]:
                ds, facts = ds[::-1], facts[::-1]
            questions.append({"qid": qid, "op": op, "divisions": ds, "metric": m, "year": y, "facts": facts, "_pl": evid})
            break
    runs: dict = {}
    if chains is not None:  # the chain extension (docatlas); draws nothing when off
        runs = _plan_chains(rng, chains, spec, doc_id, n_pages, divisions, metric_names, used, per_page, placements,
                            place, questions)  # fmt: skip
    if distractors is not None:  # the distractor extension (docatlas); draws nothing when off
        _plan_distractors(rng, distractors, n_pages, questions, values, placements)
    # distractor facts: about one extra fact paragraph per page, on facts no question uses
    free = [f for f in values if f not in used]
    for page in range(1, n_pages + 1):
        if per_page.get(page, 0) < spec.max_evidence_per_page and free:
            place(free.pop(int(rng.integers(len(free)))), page)
    # lay out page by page
    builder = PdfBuilder(title=f"{org} annual review", page_label_offset=int(rng.integers(0, 3)))
    by_page: dict[int, list[_Placement]] = {}
    for p in placements:
        by_page.setdefault(p.page, []).append(p)
    for page in range(1, n_pages + 1):
        if builder.page != page:
            raise RuntimeError(f"{doc_id}: layout drifted to page {builder.page} while filling page {page}")
        if page == 1:
            builder.add_heading(f"{org}: annual review of operations", level=1)
            builder.add_paragraph(
                f"This review reports the operations of the {len(divisions)} divisions of the {org}: "
                + ", ".join(divisions)
                + "."
            )
        elif rng.random() < 0.35:
            builder.add_heading(f"{1 + page // 3}. {rng.choice(divisions)} division: operations and results", level=2)
        items = list(by_page.get(page, []))
        rng.shuffle(items)
        for item in items:
            if rng.random() < 0.6:
                _filler(builder, rng, divisions, metric_names, need=_height(item, builder) + 20)
            item.element = _draw(builder, item, values, doc_id)
            if item.element.page != page:
                raise RuntimeError(f"{doc_id}: element for page {page} landed on page {item.element.page}")
        while _filler(builder, rng, divisions, metric_names, need=0):
            pass
        if page < n_pages:
            builder.new_page()
    elements = builder.save(pdf_path)
    # questions: evidence records and answers
    out = []
    unused = [f for f in values if f not in used]
    for q in questions:
        if q.get("_unanswerable"):
            d, m, y = unused.pop(int(rng.integers(len(unused))))
            out.append(
                {"qid": q["qid"], "doc_id": doc_id, "question": _question("lookup", [d], m, y), "op": "lookup",
                 "answer": UNANSWERABLE, "answerable": False, "evidence": [], "n_evidence": 0, "distance": 0,
                 "clusters": 0, "distance_bin": "none"}
            )  # fmt: skip
            continue
        if q.get("op") == "chain":
            out.append(_chain_record(q, doc_id, values, spec))
            continue
        evidence = []
        for f in q["facts"]:
            el = q["_pl"][f].element
            evidence.append(
                {"page": el.page, "element_id": el.element_id, "kind": el.kind, "bbox": [round(v, 3) for v in el.bbox],
                 "fact": fact_sentence(*f, values[f]), "value": values[f], "division": f[0]}
            )  # fmt: skip
        pages = [e["page"] for e in evidence]
        vals = [values[f] for f in q["facts"]]
        out.append(
            {"qid": q["qid"], "doc_id": doc_id, "question": _question(q["op"], q["divisions"], q["metric"], q["year"]),
             "op": q["op"], "answer": answer_of(q["op"], q["divisions"], vals), "answerable": True,
             "evidence": evidence, "n_evidence": len(evidence), "distance": distance(pages),
             "clusters": clusters(pages, spec.cluster_gap),
             "distance_bin": distance_bin(distance(pages), spec.distance_edges)}
        )  # fmt: skip
    meta = {
        "doc_id": doc_id,
        "organisation": org,
        "pages": n_pages,
        "divisions": divisions,
        "page_label_offset": builder.page_label_offset,
    }
    if chains is not None:
        meta["projects"] = runs
    return elements, out, meta


def _plan_chains(rng, chains, spec, doc_id, n_pages, divisions, metric_names, used, per_page, placements, place,
                 questions) -> dict:  # fmt: skip
    """Projects run by divisions, their paragraphs and distractors, and the chain questions (appended to `questions`)."""
    projects = [str(p) for p in rng.choice(PROJECTS, size=chains.projects_per_doc, replace=False)]
    runs = {p: str(divisions[int(rng.integers(len(divisions)))]) for p in projects}

    def free_page(avoid=()) -> int | None:
        pages = [p for p in range(2, n_pages + 1) if per_page.get(p, 0) < spec.max_evidence_per_page and p not in avoid]
        return int(pages[int(rng.integers(len(pages)))]) if pages else None

    def put(kind, project, division, page) -> _Placement:
        per_page[page] = per_page.get(page, 0) + 1
        item = _Placement(kind, division, [("runs", project, division)], page)
        placements.append(item)
        return item

    stated: dict = {}
    for j, p in enumerate(projects[: chains.questions_per_doc]):
        for _attempt in range(50):
            m, y = str(rng.choice(metric_names)), int(rng.choice(YEARS))
            fact = (runs[p], m, y)
            p1 = free_page()
            p2 = free_page(avoid=(p1,)) if p1 is not None else None
            if fact in used or p2 is None:
                continue
            stated[p] = put("project", p, runs[p], p1)
            questions.append({"qid": f"{doc_id}_c{j:02d}", "op": "chain", "project": p, "metric": m, "year": y,
                              "facts": [fact], "_pl": {fact: place(fact, p2)}, "_project": stated[p]})  # fmt: skip
            break
    for p in projects:  # every project stated once (those without a question too), and one distractor each
        if p not in stated and (page := free_page()) is not None:
            stated[p] = put("project", p, runs[p], page)
        other = [d for d in divisions if d != runs[p]]
        page = free_page()
        if page is not None:
            put("feedback", p, str(other[int(rng.integers(len(other)))]), page)
    return runs


def _plan_distractors(rng, dis: Distractors, n_pages: int, questions: list, values: dict, placements: list) -> None:
    """`dis.per_fact` distractor paragraphs per asked fact, each on a page other than the fact's (and other than the
    fact's other distractors'), at most `dis.per_page` per page; the value differs from the true one."""
    count: dict[int, int] = {}
    for q in questions:
        for fact in q.get("facts", []):
            avoid = {q["_pl"][fact].page}
            for _ in range(dis.per_fact):
                pages = [p for p in range(2, n_pages + 1) if count.get(p, 0) < dis.per_page and p not in avoid]
                if not pages:
                    raise UserError(
                        f"benchmark distractors: no page left for {dis.per_fact} distractors per fact of {n_pages} "
                        f"pages (at most {dis.per_page} a page): lower per_fact or raise per_page"
                    )
                page = int(pages[int(rng.integers(len(pages)))])
                wrong = int(rng.integers(100, 10000))
                while wrong == values[fact]:
                    wrong = int(rng.integers(100, 10000))
                template = int(rng.integers(len(DISTRACTOR_TEMPLATES)))
                count[page] = count.get(page, 0) + 1
                avoid.add(page)
                placements.append(_Placement("distractor", fact[0], [], page, distract=(fact, wrong, template)))


def _chain_record(q: dict, doc_id: str, values: dict, spec: Spec) -> dict:
    (fact,) = q["facts"]
    proj, el = q["_project"].element, q["_pl"][fact].element
    evidence = [
        {"page": proj.page, "element_id": proj.element_id, "kind": proj.kind, "bbox": [round(v, 3) for v in proj.bbox],
         "fact": project_sentence(q["project"], fact[0]), "value": fact[0], "division": fact[0]},
        {"page": el.page, "element_id": el.element_id, "kind": el.kind, "bbox": [round(v, 3) for v in el.bbox],
         "fact": fact_sentence(*fact, values[fact]), "value": values[fact], "division": fact[0]},
    ]  # fmt: skip
    pages = [e["page"] for e in evidence]
    return {"qid": q["qid"], "doc_id": doc_id, "question": chain_question(q["project"], q["metric"], q["year"]),
            "op": "chain", "answer": str(values[fact]), "answerable": True, "evidence": evidence, "n_evidence": 2,
            "distance": distance(pages), "clusters": clusters(pages, spec.cluster_gap),
            "distance_bin": distance_bin(distance(pages), spec.distance_edges)}  # fmt: skip


def _height(item: _Placement, b: PdfBuilder) -> float:
    lines = 3 if item.kind == "distractor" else 6  # a distractor paragraph: two lines
    return {"table": 4 * (b.body_size - 1) * 1.8 + 40, "chart": 170 + 10}.get(item.kind, lines * b.body_size * b.leading)


def _filler(b: PdfBuilder, rng, divisions, metrics, need: float) -> bool:
    """Add one filler paragraph if it fits together with `need` points after it; report whether one was added."""
    n = int(rng.integers(2, 5))
    text = " ".join(str(rng.choice(FILLER)).format(d=rng.choice(divisions), m=rng.choice(metrics)) for _ in range(n))
    from reportlab.lib.utils import simpleSplit

    height = len(simpleSplit(text, b.font, b.body_size, b.text_width)) * b.body_size * b.leading + 0.6 * b.body_size
    if height + need > b.remaining:
        return False
    b.add_paragraph(text)
    return True


def _draw(b: PdfBuilder, item: _Placement, values: dict, doc_id: str) -> Element:
    d = item.division
    if item.kind == "distractor":  # the distractor extension: a fact's words, a wrong value, a non-fact framing
        fact, wrong, template = item.distract
        text = f"{distractor_sentence(template, *fact, wrong)} The figure was not part of the audited accounts."
        return b.add_paragraph(text, meta={"facts": [], "distracts": list(fact), "value": wrong})
    if item.kind in ("project", "feedback"):  # the chain extension: a project's paragraph or its distractor
        ((_, project, division),) = item.facts
        if item.kind == "project":
            text = f"{project_sentence(project, division)} The project reports to the board twice a year."
        else:
            text = f"Project {project} received feedback from the {division} division during the review period."
        return b.add_paragraph(text, meta={"facts": [list(f) for f in item.facts]})
    if item.kind == "paragraph":
        (f,) = item.facts
        lead = f"The {d} division kept detailed records during the period under review."
        tail = "These figures were confirmed by the internal audit team."
        return b.add_paragraph(
            f"{lead} {fact_sentence(*f, values[f])} {tail}", meta={"facts": [list(f) for f in item.facts]}
        )
    if item.kind == "table":
        metrics = list(dict.fromkeys(m for _, m, _ in item.facts))
        years = sorted(set(y for _, _, y in item.facts))
        b.add_paragraph(f"Table: key figures of the {d} division.", size=b.body_size - 1)
        rows = [["Metric (unit)"] + [str(y) for y in years]]
        rows += [[f"{m} ({dict(METRICS)[m]})"] + [_fmt_value(values[(d, m, y)]) for y in years] for m in metrics]
        return b.add_table(
            rows,
            col_widths=[200.0] + [(b.text_width - 200.0) / len(years)] * len(years),
            meta={"facts": [list(f) for f in item.facts]},
        )
    metric = item.facts[0][1]
    years = [y for _, _, y in item.facts]
    return b.add_chart(
        [str(y) for y in years], [values[(d, metric, y)] for y in years],
        title=f"{metric.capitalize()} of the {d} division by year ({dict(METRICS)[metric]})", height=170.0,
        meta={"facts": [list(f) for f in item.facts]},
    )  # fmt: skip


# ---- files -------------------------------------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def generate(
    out_dir: str | Path, spec: Spec, seed: int, chains: Chains | None = None, distractors: Distractors | None = None
) -> dict:
    """Write the benchmark under `out_dir` and return the documents.json record (`chains`, `distractors`: the docatlas
    extensions)."""
    out_dir = Path(out_dir)
    rng = np.random.default_rng(seed)
    all_elements, all_questions, docs = [], [], []
    for i in range(spec.n_docs):
        doc_id = f"doc{i:03d}"
        pdf = out_dir / "docs" / f"{doc_id}.pdf"
        elements, questions, meta = _build_doc(doc_id, np.random.default_rng([seed, i]), spec, pdf, chains, distractors, i)
        all_elements += [{"doc_id": doc_id, **e.to_dict()} for e in elements]
        all_questions += questions
        docs.append({**meta, "file": f"docs/{doc_id}.pdf", "sha256": _sha256(pdf)})
    del rng
    write_text(out_dir / "elements.jsonl", "".join(json.dumps(e) + "\n" for e in all_elements))
    write_text(out_dir / "questions.jsonl", "".join(json.dumps(q) + "\n" for q in all_questions))
    spec_record = asdict(spec)
    if not spec.balanced_cells:  # off: the record (and so documents.json) stays byte-identical to before the option
        del spec_record["balanced_cells"]
    record = {"seed": seed, "spec": spec_record, "documents": docs}
    if chains is not None:
        record["chains"] = asdict(chains)
    if distractors is not None:
        record["distractors"] = asdict(distractors)
    write_json(out_dir / "documents.json", record)
    return record


@dataclass
class Benchmark:
    root: Path
    documents: dict  # doc_id -> meta (with "path")
    elements: dict  # doc_id -> [Element]
    questions: list


QUESTION_KEYS = ("qid", "doc_id", "question", "answer", "answerable", "evidence")


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise UserError(f"benchmark file missing: {path}")
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}, line {n}: not valid JSON ({exc})") from exc
    return rows


def load(root: str | Path, verify: bool = True) -> Benchmark:
    root = Path(root)
    index = root / "documents.json"
    if not index.is_file():
        raise UserError(f"benchmark index missing: {index}")
    try:
        record = json.loads(index.read_text())
        docs = {d["doc_id"]: {**d, "path": root / d["file"]} for d in record["documents"]}
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise UserError(f"{index}: malformed benchmark index ({exc})") from exc
    if verify:
        for d in docs.values():
            if not d["path"].is_file():
                raise UserError(f"benchmark PDF missing: {d['path']}")
            if _sha256(d["path"]) != d["sha256"]:
                raise UserError(f"{d['path']}: sha256 differs from {index} (file changed or corrupted)")
    elements: dict = {k: [] for k in docs}
    for row in _read_jsonl(root / "elements.jsonl"):
        if row.get("doc_id") not in elements:
            raise UserError(f"{root / 'elements.jsonl'}: element of unknown document {row.get('doc_id')!r}")
        elements[row["doc_id"]].append(Element.from_dict(row))
    questions = _read_jsonl(root / "questions.jsonl")
    for q in questions:
        missing = [k for k in QUESTION_KEYS if k not in q]
        if missing or q["doc_id"] not in docs:
            raise UserError(f"{root / 'questions.jsonl'}: question {q.get('qid')!r} lacks {missing or 'a known doc_id'}")
    return Benchmark(root, docs, elements, questions)


# ---- real long PDFs: questions from the document's own structure ---------------------------------------------------
def outline(path: str | Path) -> list[dict]:
    """The PDF outline (bookmarks): [{"title", "level", "page"}], page from 1; entries without a page are dropped."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        out = []
        for item in doc.get_toc(max_depth=4):
            page = item.get_dest().get_index() if item.get_dest() is not None else None
            title = item.get_title().strip()
            if page is not None and title:
                out.append({"title": title, "level": int(item.level), "page": int(page) + 1})
        return out
    finally:
        doc.close()


def _norm(s: str) -> str:
    return " ".join("".join(ch.lower() if ch.isalnum() else " " for ch in s).split())


def locate_heading(path: str | Path, page: int, title: str) -> tuple | None:
    """Box (points, top-left origin) of the text-layer line on `page` that carries `title` (its last words), or None."""
    want = _norm(title)
    tail = " ".join(want.split()[-3:])
    for line in page_lines(path, page):
        text = _norm(line["text"])
        if text and (want in text or (tail and tail in text and len(text) < len(want) + 20)):
            return tuple(line["bbox"])
    return None


def real_questions(manuals: list[Path], n: int, seed: int, min_pages: int = 100) -> list[dict]:
    """Questions over real long PDFs with gold evidence from their outline. Two templates: "On which page of the PDF does
    the section titled T start?" (1 evidence: the heading line) and "Which comes first in the manual, section A or
    section B?" (2 evidence: both headings; answer = the earlier title). Only headings found in the text layer are used."""
    rng = np.random.default_rng(seed)
    pool = []
    for path in manuals:
        if page_count(path) < min_pages:
            continue
        entries = [e for e in outline(path) if e["level"] >= 1 and len(e["title"]) > 8 and e["page"] > 2]
        seen = {}
        for e in entries:
            seen.setdefault(e["title"], e)
        titles = [e for e in seen.values() if list(x["title"] for x in entries).count(e["title"]) == 1]
        pool.append((Path(path), titles))
    if not pool:
        raise UserError(f"no PDF with >= {min_pages} pages and an outline among {[str(m) for m in manuals]}")
    out = []
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        path, titles = pool[int(rng.integers(len(pool)))]
        two = rng.random() < 0.5
        picks = [titles[int(i)] for i in rng.choice(len(titles), size=2 if two else 1, replace=False)]
        if two and picks[0]["page"] == picks[1]["page"]:
            continue
        boxes = [locate_heading(path, p["page"], p["title"]) for p in picks]
        if any(b is None for b in boxes):
            continue
        evidence = [
            {"page": p["page"], "element_id": f"outline:{p['title']}", "kind": "heading", "bbox": [round(v, 3) for v in b],
             "fact": f"The section titled '{p['title']}' starts on page {p['page']}.", "value": p["page"], "division": ""}
            for p, b in zip(picks, boxes)
        ]  # fmt: skip
        if two:
            question = (
                f"Which comes first in the manual, the section '{picks[0]['title']}' or the section '{picks[1]['title']}'?"
            )
            answer = min(picks, key=lambda p: p["page"])["title"]
        else:
            question = f"On which page of the PDF does the section titled '{picks[0]['title']}' start?"
            answer = str(picks[0]["page"])
        pages = [e["page"] for e in evidence]
        qid = f"real{len(out):03d}"
        if any(q["question"] == question for q in out):
            continue
        out.append(
            {"qid": qid, "doc_id": path.stem, "doc_path": str(path), "question": question,
             "op": "compare" if two else "page",
             "answer": answer, "answerable": True, "evidence": evidence, "n_evidence": len(evidence),
             "distance": distance(pages), "clusters": clusters(pages), "distance_bin": distance_bin(distance(pages), [2, 8])}
        )  # fmt: skip
    return out

"""The embedded documents: templated organisation reports (facts + distractors + filler) and questions over them.

A document is a list of sections -> pages -> blocks (paragraphs). Every fact sentence follows one exact pattern (the
extractive reader's `slots.PATTERNS`); distractor sentences reuse the same words (division names, years, numbers) in
other patterns, so lexical retrieval of the whole question is noisy. Questions are single-page (one fact), cross-page
(a two-hop chain through a project, or a comparison / sum over two divisions; the two facts sit in different sections)
or unanswerable (the asked entity or year is absent). Everything is drawn from one numpy Generator: same seed, same text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

DIVISIONS = ["Aldon", "Brisk", "Corvel", "Dunmore", "Elswick", "Farrow", "Galton", "Hexley", "Irvale", "Jarrow",
             "Kestrel", "Lorwen", "Marrow", "Norcott", "Oakhurst", "Pellam", "Quarry", "Rydal", "Selby", "Tarran",
             "Umber", "Vexham", "Wexcombe", "Yarrow"]
FIRST = ["Mara", "Tomas", "Ines", "Colin", "Aiko", "Bruno", "Delia", "Felix", "Greta", "Hugo", "Ilse", "Jonas", "Karin",
         "Leon", "Nadia", "Oskar", "Petra", "Rafael", "Sonja", "Viktor"]
LAST = ["Quint", "Adler", "Brandt", "Castell", "Dorn", "Ekberg", "Falk", "Grau", "Holm", "Ivers", "Janek", "Kolb",
        "Lind", "Moser", "Nyberg", "Ostrow", "Pohl", "Roth", "Stahl", "Vogt"]
CITIES = ["Lisbon", "Oslo", "Porto", "Tallinn", "Krakow", "Ghent", "Bergen", "Turin", "Malmo", "Leeds", "Graz",
          "Utrecht", "Bilbao", "Aarhus", "Brno", "Cork"]
PROJECTS = ["Falcon", "Granite", "Harbor", "Juniper", "Lantern", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quasar",
            "Rampart", "Sextant", "Tundra", "Vanguard", "Willow", "Zenith", "Beacon", "Cobalt", "Delta", "Ember"]
YEARS = [2018, 2019, 2020, 2021, 2022]
ABSENT_YEARS = [2012, 2013, 2014, 2015]
FILLER = [
    "The {d} division reviewed its procurement policy during the {y} planning cycle.",
    "Staff of the {d} division attended the annual safety workshop.",
    "The board discussed the reporting schedule of the {d} division.",
    "Several teams shared facilities and logistics services across sites.",
    "Internal audits in {y} found the records of the {d} division complete.",
    "The committee noted steady progress on training and documentation.",
    "Budget discussions continued through the second quarter of {y}.",
    "The {d} division updated its guidelines on travel and expenses.",
]


@dataclass(frozen=True)
class Block:
    id: str
    doc: str
    section: int
    section_title: str
    page: int  # 1-based page number within the document
    text: str


@dataclass(frozen=True)
class Question:
    id: str
    doc: str
    text: str
    answer: str
    answer_format: str  # Int | Float | Str | List | None (MMLongBench-Doc's answer types)
    qtype: str  # single | cross | unanswerable
    kind: str  # template name
    evidence_blocks: tuple[str, ...] = ()
    evidence_pages: tuple[int, ...] = ()


@dataclass
class Document:
    id: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return max(b.page for b in self.blocks)


def _fact_texts(rng, divisions, facts) -> dict[str, list[tuple[str, tuple]]]:
    """Per section key: the fact sentences with their fact keys, plus distractors using the same vocabulary."""
    out: dict[str, list[tuple[str, tuple]]] = {d: [] for d in divisions}
    out["projects"] = []
    for d in divisions:
        f = facts[d]
        out[d] += [(f"The {d} division is headed by {f['head']}.", ("head", d)),
                   (f"The {d} division is headquartered in {f['city']}.", ("city", d)),
                   (f"The {d} division employs {f['headcount']} people.", ("headcount", d))]
        out[d] += [(f"In {y}, the {d} division reported revenue of {f['revenue'][y]} million.", ("revenue", d, y))
                   for y in YEARS]
        other = divisions[int(rng.integers(len(divisions)))]
        y = YEARS[int(rng.integers(len(YEARS)))]
        out[d] += [(f"Analysts expected the {other} division to report revenue of "
                    f"{round(float(rng.uniform(10, 90)), 1)} million in {y}.", ()),
                   (f"A former head of the {other} division, {rng.choice(FIRST)} {rng.choice(LAST)}, retired in {y}.", ()),
                   (f"The {other} division plans to open an office in {rng.choice(CITIES)}.", ()),
                   (f"About {int(rng.integers(100, 900))} people applied to the {other} division in {y}.", ())]
    for p, d in facts["projects"].items():
        out["projects"].append((f"Project {p} is run by the {d} division.", ("runs", p)))
        other = divisions[int(rng.integers(len(divisions)))]
        out["projects"].append((f"Project {p} received feedback from the {other} division.", ()))
    return out


def _paragraphs(rng, sentences, divisions, per_block) -> list[str]:
    """Shuffle the section's sentences, then pad every paragraph with filler to `per_block` sentences."""
    order = rng.permutation(len(sentences))
    chunks = [[sentences[i][0]] for i in order]
    for chunk in chunks:
        while len(chunk) < per_block:
            t = FILLER[int(rng.integers(len(FILLER)))]
            chunk.insert(int(rng.integers(len(chunk) + 1)),
                         t.format(d=divisions[int(rng.integers(len(divisions)))], y=YEARS[int(rng.integers(5))]))
    return [" ".join(c) for c in chunks]


def make_document(rng: np.random.Generator, doc_id: str, cfg) -> tuple[Document, dict]:
    """One report: an overview, one section per division, a projects section; `cfg` has divisions, projects,
    blocks_per_page, sentences_per_block."""
    names = list(rng.choice(DIVISIONS, size=cfg.divisions, replace=False))
    people = [f"{a} {b}" for a in FIRST for b in LAST]
    heads = rng.choice(len(people), size=len(names), replace=False)
    facts: dict = {d: {"head": people[h], "city": str(rng.choice(CITIES)), "headcount": int(rng.integers(120, 980)),
                       "revenue": {y: round(float(rng.uniform(10, 90)), 1) for y in YEARS}}
                   for d, h in zip(names, heads)}
    projects = list(rng.choice(PROJECTS, size=cfg.projects, replace=False))
    facts["projects"] = {p: names[int(rng.integers(len(names)))] for p in projects}
    texts = _fact_texts(rng, names, facts)
    sections = [("Overview", [(s, ()) for s in rng.choice(FILLER, size=cfg.sentences_per_block * 4)])]
    sections += [(f"The {d} division", texts[d]) for d in names] + [("Projects", texts["projects"])]
    doc, page, slot = Document(doc_id), 1, 0
    where: dict = {}
    for si, (title, sentences) in enumerate(sections):
        if si == 0:
            paras = [" ".join(s.format(d=names[0], y=YEARS[0]) for s, _ in sentences[i:i + cfg.sentences_per_block])
                     for i in range(0, len(sentences), cfg.sentences_per_block)]
        else:
            paras = _paragraphs(rng, sentences, names, cfg.sentences_per_block)
        if slot:  # every section starts on a new page
            page, slot = page + 1, 0
        for text in paras:
            b = Block(f"{doc_id}-b{len(doc.blocks):03d}", doc_id, si, title, page, text)
            doc.blocks.append(b)
            for sentence, key in sentences:
                if key and sentence in text:
                    where[key] = b
            slot += 1
            if slot == cfg.blocks_per_page:
                page, slot = page + 1, 0
    return doc, {"facts": facts, "where": where, "divisions": names, "projects": projects}


def _q(doc, n, text, answer, fmt, qtype, kind, blocks):
    return Question(f"{doc.id}-q{n:02d}", doc.id, text, str(answer), fmt, qtype, kind, tuple(b.id for b in blocks),
                    tuple(sorted({b.page for b in blocks})))


def make_questions(rng: np.random.Generator, doc: Document, world: dict, n: int, mix) -> list[Question]:
    """`n` questions, types drawn with probabilities `mix` (single, cross, unanswerable)."""
    from neurips26.papers.docatlas import slots

    f, w, divs, projs = world["facts"], world["where"], world["divisions"], world["projects"]
    absent_div = [d for d in DIVISIONS if d not in divs]
    absent_proj = [p for p in PROJECTS if p not in projs]
    out = []
    for i in range(n):
        qtype = ["single", "cross", "unanswerable"][int(rng.choice(3, p=list(mix)))]
        d, d2 = (str(x) for x in rng.choice(divs, size=2, replace=False))
        y, p = YEARS[int(rng.integers(5))], str(rng.choice(projs))
        rel = ["head", "city", "headcount", "revenue"][int(rng.integers(4))]
        if qtype == "single":
            key = ("revenue", d, y) if rel == "revenue" else (rel, d)
            value = f[d]["revenue"][y] if rel == "revenue" else f[d][rel]
            out.append(_q(doc, i, slots.ask(rel, d, y), value, slots.FORMATS[rel], qtype, rel, [w[key]]))
        elif qtype == "cross":
            form = ["chain", "sum", "compare"][int(rng.integers(3))]
            if form == "chain":
                rel = ["head", "city", "revenue"][int(rng.integers(3))]
                dp = f["projects"][p]
                key = ("revenue", dp, y) if rel == "revenue" else (rel, dp)
                value = f[dp]["revenue"][y] if rel == "revenue" else f[dp][rel]
                out.append(_q(doc, i, slots.ask_chain(rel, p, y), value, slots.FORMATS[rel], qtype, f"chain_{rel}",
                              [w[("runs", p)], w[key]]))
            elif form == "sum":
                out.append(_q(doc, i, slots.ask_sum(d, d2), f[d]["headcount"] + f[d2]["headcount"], "Int", qtype,
                              "sum_headcount", [w[("headcount", d)], w[("headcount", d2)]]))
            else:
                r1, r2 = f[d]["revenue"][y], f[d2]["revenue"][y]
                out.append(_q(doc, i, slots.ask_compare(d, d2, y), d if r1 >= r2 else d2, "Str", qtype,
                              "compare_revenue", [w[("revenue", d, y)], w[("revenue", d2, y)]]))
        else:
            form = int(rng.integers(3))
            if form == 0:
                text = slots.ask(rel, str(rng.choice(absent_div)), y)
            elif form == 1:
                text = slots.ask("revenue", d, ABSENT_YEARS[int(rng.integers(len(ABSENT_YEARS)))])
            else:
                text = slots.ask_chain(["head", "city"][int(rng.integers(2))], str(rng.choice(absent_proj)), y)
            out.append(_q(doc, i, text, "Not answerable", "None", qtype, "absent", []))
    return out

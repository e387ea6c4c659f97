"""Real long documents: the R manuals of Debian's r-doc-pdf (100+ pages), read through the PDF text layer.

Blocks: each page's lines, a new block at every numbered heading line and every `max_words` words. Questions come from
the documents' own structure: the PDF outline (bookmark titles) and the numbered heading lines in the text. Single-page:
"Which section number has the title 'T'?" (gold: the number on T's heading line, found in the body, not in the table of
contents); cross-page: "Which section comes first, 'A' or 'B'?" (A and B in different chapters); unanswerable: a title
taken from another manual that this one does not contain.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.docatlas import retrieval, slots
from neurips26.papers.docatlas.world import Block, Document, Question

MANUAL_DIR = Path("/usr/share/R/doc/manual")
HEADING = re.compile(r"^(\d+(?:\.\d+)+) (\S.*)$")
TITLE_OK = re.compile(r"^[A-Za-z][A-Za-z0-9 ,;:()-]{6,60}$")


def _count(chunks) -> int:
    """The number of non-empty chunks, i.e. the index the last chunk will get among this page's blocks + 1."""
    return sum(1 for _, c in chunks[:-1] if c) + 1


def load_manual(path: Path, max_words: int = 60) -> tuple[Document, list[tuple[str, int]], dict[str, tuple]]:
    """The document, its outline titles (title, level) and title -> (number, block) for body heading lines."""
    import pypdfium2 as pdfium

    if not path.is_file():
        raise UserError(f"docatlas needs {path} from the Debian package r-doc-pdf: apt-get install r-doc-pdf")
    pdf = pdfium.PdfDocument(path)
    try:
        outline = [(" ".join(b.get_title().split()), b.level) for b in pdf.get_toc()]
        doc, headings, section = Document(path.stem), {}, "front matter"
        for pi in range(len(pdf)):
            lines = [" ".join(x.split()) for x in pdf[pi].get_textpage().get_text_range().splitlines()]
            chunks: list[tuple[str, list[str]]] = [(section, [])]
            for line in filter(None, lines[1:] if pi > 0 else lines):  # line 0 of a body page: the running header
                m = HEADING.match(line)
                if m and ". ." not in line:
                    section = m.group(2)
                    chunks.append((section, []))
                    headings.setdefault(section, (m.group(1), len(doc.blocks) + _count(chunks) - 1))
                elif sum(len(x.split()) for x in chunks[-1][1]) + len(line.split()) > max_words:
                    chunks.append((chunks[-1][0], []))
                chunks[-1][1].append(line)
            for title, chunk in chunks:
                if chunk:
                    doc.blocks.append(Block(f"{path.stem}-b{len(doc.blocks):04d}", path.stem, 0, title, pi + 1,
                                            " ".join(chunk)))
    finally:
        pdf.close()
    return doc, outline, headings


def make_manual_questions(rng, doc, outline, headings, foreign: list[str], n: int, mix) -> list[Question]:
    titles = sorted({t for t, level in outline if level >= 1 and TITLE_OK.match(t) and t in headings})
    absent = sorted({t for t in foreign if TITLE_OK.match(t) and t not in headings and t not in outline})
    out = []
    for i in range(n):
        qtype = ["single", "cross", "unanswerable"][int(rng.choice(3, p=list(mix)))]
        if qtype == "unanswerable" and absent:
            out.append(Question(f"{doc.id}-q{i:02d}", doc.id, slots.ask_section(str(rng.choice(absent))),
                                slots.NOT_ANSWERABLE, "None", qtype, "absent_title"))
            continue
        a = str(rng.choice(titles))
        num_a, blk_a = headings[a]
        chapter = num_a.split(".")[0]
        others = [t for t in titles if headings[t][0].split(".")[0] != chapter]
        if qtype == "cross" and others:
            b = str(rng.choice(others))
            num_b, blk_b = headings[b]
            first = a if tuple(map(int, num_a.split("."))) <= tuple(map(int, num_b.split("."))) else b
            blocks = [doc.blocks[blk_a], doc.blocks[blk_b]]
            out.append(Question(f"{doc.id}-q{i:02d}", doc.id, slots.ask_order(a, b), first, "Str", "cross",
                                "section_order", tuple(x.id for x in blocks), tuple(sorted({x.page for x in blocks}))))
        else:
            blk = doc.blocks[blk_a]
            out.append(Question(f"{doc.id}-q{i:02d}", doc.id, slots.ask_section(a), num_a, "Str", "single",
                                "section_number", (blk.id,), (blk.page,)))
    return out


def manual_corpus(cfg, seed: int, encoder) -> tuple[dict, list]:
    loaded = {f: load_manual(MANUAL_DIR / f) for f in cfg.manuals.files}
    rng = np.random.default_rng([seed, 3])
    docs, questions = {}, []
    for f, (doc, outline, headings) in loaded.items():
        foreign = [t for g, (_, o, _) in loaded.items() if g != f for t, level in o if level >= 1]
        if not foreign:  # one manual only (tiny scale): titles of the generated reports' templates stand in
            foreign = ["Installing packages on a cluster", "Reading spreadsheet files", "Writing graphics devices"]
        qs = make_manual_questions(rng, doc, outline, headings, foreign, cfg.manuals.questions_per_manual,
                                   cfg.manuals.mix)
        docs[doc.id] = (doc, retrieval.Index([b.text for b in doc.blocks], encoder, cfg.retrieval.alpha))
        questions += [(doc.id, q) for q in qs]
    return docs, questions

"""docatlas's view of the shared benchmark: documents as blocks (document -> section -> page -> block) and questions.

The generated reports and their questions come from the ONE shared generator, `common/docbench/doc_benchmark` (docscope's),
with its chain extension (`doc_benchmark.Chains`: projects run by divisions and two-hop questions "What was the <metric>
of the division that runs Project P in <year>?"). This module only converts: every laid-out element except headings is
a block whose text is read back from the PDF text layer (`pdf.read_blocks`); a level-2 heading starts a new section
(the tree's sections); a question is single-page / cross-page / unanswerable by its number of distinct evidence pages,
as MMLongBench-Doc's `show_results` groups them. The R manuals (`manuals.py`) use the same dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from neurips26.papers.docatlas.slots import NOT_ANSWERABLE


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
    kind: str  # the generator's op (lookup, difference, total, highest, chain) or "absent"
    evidence_blocks: tuple[str, ...] = ()
    evidence_pages: tuple[int, ...] = ()


@dataclass
class Document:
    id: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return max(b.page for b in self.blocks)


def spec_from_config(c):
    """The shared generator's Spec, Chains and Distractors from docatlas's `corpus` config (split sizes set by the
    caller); `corpus.distractors_per_fact` 0 or absent: no distractor extension."""
    from neurips26.common.docbench import doc_benchmark as B

    spec = B.Spec(n_docs=int(c.docs), pages_min=int(c.pages_min), pages_max=int(c.pages_max),
                  questions_per_doc=int(c.questions_per_doc), unanswerable_fraction=float(c.unanswerable_fraction),
                  evidence_kinds=dict(c.evidence_kinds))
    n = int(c.get("distractors_per_fact", 0) or 0)
    return (spec, B.Chains(projects_per_doc=int(c.projects), questions_per_doc=int(c.chain_questions_per_doc)),
            B.Distractors(per_fact=n) if n > 0 else None)


def _question(q: dict, prefix: str) -> Question:
    doc = f"{prefix}{q['doc_id']}"
    if not q["answerable"]:
        return Question(f"{prefix}{q['qid']}", doc, q["question"], NOT_ANSWERABLE, "None", "unanswerable", "absent")
    pages = tuple(sorted({int(e["page"]) for e in q["evidence"]}))
    return Question(f"{prefix}{q['qid']}", doc, q["question"], str(q["answer"]),
                    "Str" if q["op"] == "highest" else "Int", "single" if len(pages) == 1 else "cross", q["op"],
                    tuple(f"{doc}-{e['element_id']}" for e in q["evidence"]), pages)


def load_generated(root: Path, prefix: str, from_pdf: bool = True) -> tuple[list[Document], list[Question]]:
    """Documents and questions of a benchmark written by `doc_benchmark.generate` under `root`; block ids and doc ids
    get `prefix` (the split). With `from_pdf` the block text is what the PDF text layer gives back inside each box."""
    from neurips26.common.docbench import doc_benchmark as B
    from neurips26.papers.docatlas.pdf import read_blocks

    bm = B.load(root)
    docs = []
    for doc_id, elements in bm.elements.items():
        blocks_el = {e.element_id: e for e in elements if e.kind != "heading"}
        texts = read_blocks(bm.documents[doc_id]["path"], blocks_el) if from_pdf else \
            {k: e.text for k, e in blocks_el.items()}
        doc, section, title = Document(f"{prefix}{doc_id}"), 0, "front matter"
        for e in elements:
            if e.kind == "heading":
                section, title = section + 1, e.text
                continue
            doc.blocks.append(Block(f"{doc.id}-{e.element_id}", doc.id, section, title, e.page, texts[e.element_id]))
        docs.append(doc)
    return docs, [_question(q, prefix) for q in bm.questions]

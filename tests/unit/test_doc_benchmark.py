"""common/docbench/doc_benchmark.py: gold evidence is where records say, answers follow from the evidence, controls hold."""

import json
import re

import pytest

from neurips26.common.docbench import doc_benchmark as B
from neurips26.common.docbench import documents as D
from neurips26.common.pipeline.errors import UserError


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("bench")
    B.generate(root, B.Spec(n_docs=2, pages_min=20, pages_max=24, questions_per_doc=20), seed=11)
    return root, B.load(root)


def _num(s):
    return int(s.replace(",", ""))


def test_structure_and_controls(bench):
    _, bm = bench
    assert len(bm.questions) == 40
    for d in bm.documents.values():
        assert 20 <= D.page_count(d["path"]) == d["pages"] <= 24
    unans = [q for q in bm.questions if not q["answerable"]]
    assert len(unans) == 4 and all(q["answer"] == B.UNANSWERABLE and not q["evidence"] for q in unans)
    for q in bm.questions:
        pages = [e["page"] for e in q["evidence"]]
        assert q["clusters"] == B.clusters(pages) and q["distance"] == B.distance(pages)
        assert 0 <= q["n_evidence"] <= 4
    assert {q["n_evidence"] for q in bm.questions} == {0, 1, 2, 3, 4}
    assert {q["distance_bin"] for q in bm.questions} >= {"near", "mid", "far"}


def test_dispersion_measures():
    assert B.clusters([3, 4, 10, 10, 30]) == 3
    assert B.clusters([]) == 0
    assert B.distance([5, 30, 7]) == 25
    assert [B.distance_bin(d, [2, 8]) for d in (0, 2, 3, 8, 9)] == ["near", "near", "mid", "mid", "far"]


def test_evidence_elements_state_the_facts(bench):
    """Each evidence item's element is on the recorded page, holds the fact's value, and the value's words lie in its box
    in the PDF text layer; answers recomputed from the element contents match."""
    _, bm = bench
    by_id = {(doc, e.element_id): e for doc, els in bm.elements.items() for e in els}
    for q in [q for q in bm.questions if q["answerable"]][:25]:
        values = []
        for ev in q["evidence"]:
            el = by_id[(q["doc_id"], ev["element_id"])]
            assert el.page == ev["page"] and el.bbox == pytest.approx(tuple(ev["bbox"]), abs=1e-2)
            shown = f"{ev['value']:,}" if el.kind != "chart" else str(ev["value"])
            assert shown in el.text, (q["qid"], shown, el.text[:200])
            words = D.page_words(bm.documents[q["doc_id"]]["path"], el.page)
            hits = [w for w in words if w["text"].rstrip(".") == shown]
            assert any(
                el.bbox[0] - 2 <= w["bbox"][0] and w["bbox"][2] <= el.bbox[2] + 2
                and el.bbox[1] - 2 <= w["bbox"][1] and w["bbox"][3] <= el.bbox[3] + 2
                for w in hits
            ), (q["qid"], shown)  # fmt: skip
            values.append(_num(re.search(r"of ([\d,]+) ", ev["fact"]).group(1)))
        assert values == [ev["value"] for ev in q["evidence"]]
        divisions = [ev["division"] for ev in q["evidence"]]
        assert B.answer_of(q["op"], divisions, values) == q["answer"]


def test_unanswerable_facts_are_absent(bench):
    _, bm = bench
    for q in [q for q in bm.questions if not q["answerable"]]:
        m = re.match(r"What was the (.+) of the (\w+) division in (\d+)\?", q["question"])
        metric, division, year = m.group(1), m.group(2), int(m.group(3))
        for el in bm.elements[q["doc_id"]]:
            facts = [tuple(f) for f in el.meta.get("facts", [])]
            assert (division, metric, year) not in facts


def test_deterministic(tmp_path):
    spec = B.Spec(n_docs=1, pages_min=20, pages_max=20, questions_per_doc=6)
    B.generate(tmp_path / "a", spec, seed=3)
    B.generate(tmp_path / "b", spec, seed=3)
    for name in ("documents.json", "questions.jsonl", "elements.jsonl", "docs/doc000.pdf"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_load_errors(bench, tmp_path):
    root, _ = bench
    with pytest.raises(UserError, match="index missing"):
        B.load(tmp_path)
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "docs").mkdir()
    for name in ("documents.json", "elements.jsonl", "questions.jsonl"):
        (copy / name).write_bytes((root / name).read_bytes())
    for name in ("doc000.pdf", "doc001.pdf"):
        (copy / "docs" / name).write_bytes((root / "docs" / name).read_bytes())
    (copy / "docs" / "doc001.pdf").write_bytes(b"%PDF-1.4 damaged")
    with pytest.raises(UserError, match="sha256"):
        B.load(copy)
    (copy / "docs" / "doc001.pdf").write_bytes((root / "docs" / "doc001.pdf").read_bytes())
    (copy / "questions.jsonl").write_text(json.dumps({"qid": "x"}) + "\n")
    with pytest.raises(UserError, match="lacks"):
        B.load(copy)


def test_real_questions_from_r_manuals():
    try:
        manuals = D.r_manuals()
    except UserError:
        pytest.skip("r-doc-pdf not installed")
    manuals = [m for m in manuals if m.name in ("R-exts.pdf", "R-admin.pdf")] or manuals[:2]
    qs = B.real_questions(manuals, n=6, seed=0)
    assert len(qs) == 6
    for q in qs:
        for ev in q["evidence"]:
            lines = D.page_lines(q["doc_path"], ev["page"])
            assert any(tuple(ln["bbox"]) == pytest.approx(tuple(ev["bbox"]), abs=0.01) for ln in lines)
        if q["op"] == "page":
            assert q["answer"] == str(q["evidence"][0]["page"])


def test_docscope_benchmark_pinned(tmp_path):
    """docscope's benchmark must stay byte-identical for the same spec and seed when the shared generator is extended
    (docatlas's chain questions): the hashes were recorded on main before the extension was added."""
    import hashlib

    B.generate(tmp_path, B.Spec(n_docs=1, pages_min=20, pages_max=20, questions_per_doc=10), seed=5)
    got = {f: hashlib.sha256((tmp_path / f).read_bytes()).hexdigest()
           for f in ("documents.json", "elements.jsonl", "questions.jsonl")}
    assert got == {
        "documents.json": "caeaeccb2ceefc39a39c94853ffaec499790956736a47702817b9304dd7a3876",
        "elements.jsonl": "f8a271777483e44a36f7db81f29e2ded5d27c0df1295fcd16879a57d9d078891",
        "questions.jsonl": "5ee0c02f0388cee788b3568ff756b2d19be7e51f008f8632320ba82d946cfbd6",
    }


def test_chain_extension_records_and_bad_sizes(tmp_path):
    """The chain extension (docatlas): every chain question's evidence is the project paragraph then the fact, on two
    pages, and the answer is the fact's value; impossible sizes are a clear error."""
    rec = B.generate(tmp_path, B.Spec(n_docs=1, pages_min=20, pages_max=20, questions_per_doc=8), seed=2,
                     chains=B.Chains(projects_per_doc=6, questions_per_doc=4))
    assert rec["chains"] == {"projects_per_doc": 6, "questions_per_doc": 4} and len(rec["documents"][0]["projects"]) == 6
    bm = B.load(tmp_path)
    chains = [q for q in bm.questions if q["op"] == "chain"]
    assert len(chains) == 4
    for q in chains:
        proj, fact = q["evidence"]
        assert proj["page"] != fact["page"] and q["answer"] == str(fact["value"])
        assert rec["documents"][0]["projects"][re.search(r"Project (\w+)", q["question"]).group(1)] == fact["division"]
    with pytest.raises(UserError, match="chains"):
        B.Chains(projects_per_doc=3, questions_per_doc=5)


def test_distractor_extension_shares_the_words_and_the_reader_rejects_it(tmp_path):
    """The distractor extension (docatlas): every asked fact gets `per_fact` distractor paragraphs on other pages, with
    the fact's division, metric, unit and year and a different value; docatlas's extractive reader (which reads only the
    fact sentence's framing) never fills the slot from them, but does from the gold evidence."""
    from neurips26.papers.docatlas import slots

    rec = B.generate(tmp_path, B.Spec(n_docs=1, pages_min=24, pages_max=24, questions_per_doc=12,
                                      evidence_kinds={"paragraph": 1.0}), seed=4,
                     chains=B.Chains(projects_per_doc=4, questions_per_doc=3), distractors=B.Distractors(per_fact=3))
    assert rec["distractors"] == {"per_fact": 3, "per_page": 6}
    bm = B.load(tmp_path)
    els = bm.elements["doc000"]
    dis = [e for e in els if "distracts" in e.meta]
    by_fact: dict = {}
    for e in dis:
        by_fact.setdefault(tuple(e.meta["distracts"]), []).append(e)
    metric_facts = [ev for q in bm.questions for ev in q["evidence"] if ev["fact"].startswith("In ")]
    assert len(metric_facts) >= 12
    for ev in metric_facts:
        year, metric = re.match(r"In (\d+), the \w+ division reported (.+?) of", ev["fact"]).groups()
        division, fact = ev["division"], (ev["division"], metric, int(year))
        found = by_fact.pop(fact)
        assert len(found) == 3 and len({e.page for e in found}) == 3 and ev["page"] not in {e.page for e in found}
        slot = slots.Slot(metric, None, int(year))
        for e in found:
            text = " ".join(e.text.split())
            assert all(w in text for w in (division, metric, dict(B.METRICS)[metric], year)), text
            assert e.meta["value"] != ev["value"] and f"{e.meta['value']:,}" in text
            assert slots.extract(slot, division, e.text) is None, text
        gold = next(e for e in els if e.element_id == ev["element_id"])
        assert slots.extract(slot, division, gold.text) == f"{ev['value']:,}"
    assert not by_fact  # no distractor for a fact no question asks
    assert {e.meta["value"] for e in dis} and len({e.text.split(" ")[0] for e in dis}) >= 3  # several framings
    with pytest.raises(UserError, match="distractors"):
        B.Distractors(per_fact=-1)

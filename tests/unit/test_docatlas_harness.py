"""The harness: observations never exceed the budget, notes cite real blocks, the question parser inverts the templates,
the reader ignores distractors, the PDF text layer gives the blocks back, and the ablations behave as defined."""

import numpy as np
import pytest

from neurips26.common.docbench import doc_benchmark as B
from neurips26.papers.docatlas import agents, harness, retrieval, slots, world

SPEC = B.Spec(n_docs=1, pages_min=20, pages_max=20, questions_per_doc=20, unanswerable_fraction=0.2,
              evidence_kinds={"paragraph": 1.0})


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("docatlas_bench")
    B.generate(root, SPEC, seed=11, chains=B.Chains(projects_per_doc=8, questions_per_doc=6))
    return root


@pytest.fixture(scope="module")
def corpus(generated):
    (doc,), questions = world.load_generated(generated, "t-")
    return doc, None, questions, retrieval.Index([b.text for b in doc.blocks], retrieval.HashEncoder())


def test_parser_recovers_every_generated_question(corpus, generated):
    _, _, questions, _ = corpus
    raw = {f"t-{q['qid']}": q for q in B.load(generated).questions}
    assert {q.kind for q in questions} == {"lookup", "difference", "total", "highest", "chain", "absent"}
    for q in questions:
        plan = slots.parse(q.text)
        r = raw[q.id]
        if r["op"] == "chain":
            assert [s.rel for s in plan.slots] == ["runs", r["evidence"][1]["fact"].split(" reported ")[1].split(" of ")[0]]
            assert plan.slots[0].subject in r["question"] and plan.slots[1].ref == 0
        else:  # one slot per fact, each naming the fact's division (the generator's own records)
            assert len(plan.slots) == max(r["n_evidence"], 1)
            assert [s.subject for s in plan.slots][: len(r["evidence"])] == [e["division"] for e in
                                                                             sorted(r["evidence"], key=lambda e:
                                                                                    r["question"].index(e["division"]))]
    with pytest.raises(ValueError, match="outside the templates"):
        slots.parse("What is the meaning of life?")


def test_chain_questions_are_cross_page_with_project_then_fact(generated):
    bm = B.load(generated)
    chains = [q for q in bm.questions if q["op"] == "chain"]
    assert len(chains) == 6
    for q in chains:
        (p1, p2) = q["evidence"]
        assert p1["page"] != p2["page"] and p1["fact"].startswith("Project ") and p1["value"] == p2["division"]
        assert q["answer"] == str(p2["value"]) and p2["fact"] in " ".join(
            e.text for e in bm.elements[q["doc_id"]] if e.element_id == p2["element_id"])


def test_reader_answers_from_gold_evidence_and_ignores_distractors(corpus):
    doc, _, questions, _ = corpus
    by_id = {b.id: b for b in doc.blocks}
    for q in questions:
        texts = [by_id[b].text for b in q.evidence_blocks]
        assert slots.read_context(slots.parse(q.text), texts) == q.answer
    slot = slots.Slot("shipments", "Coastal", 2019)
    assert slots.extract(slot, "Coastal", "In 2018, the Coastal division reported shipments of 1,234 containers.") is None
    assert slots.extract(slot, "Coastal", "In 2019, the Inland division reported shipments of 1,234 containers.") is None
    assert slots.extract(slot, "Coastal", "In 2019, the Coastal division reported shipments of 1,234 containers.") == \
        "1,234"
    runs = slots.Slot("runs", "Falcon")
    assert slots.extract(runs, "Falcon", "Project Falcon received feedback from the Inland division.") is None
    assert slots.extract(runs, "Falcon", "Project Falcon is run by the Coastal division.") == "Coastal"


@pytest.mark.parametrize("budget", [64, 96, 192])
@pytest.mark.parametrize("flags", [{}, {"notes": False}, {"review": False}, {"refine": False}])
def test_no_observation_exceeds_the_budget_and_notes_cite_real_blocks(corpus, budget, flags):
    doc, _, questions, index = corpus
    env = harness.DocAtlasEnv(doc, index, budget, **flags)
    texts = {b.id: " ".join(b.text.split()) for b in doc.blocks}
    for q in questions:
        obs = env.reset(q)
        agent = agents.HarnessAgent()
        agent.reset()
        done = False
        while not done:
            assert obs["tokens"] <= budget and harness.ntokens(obs["text"]) == obs["tokens"]
            obs, _, done, _ = env.step(agent.act(obs))
        assert obs["tokens"] <= budget
        for note in env.notes:
            assert note.value in texts[note.block]
            assert doc.blocks[env.tree.index[note.block]].page == note.page


def test_note_with_a_false_citation_is_rejected(corpus):
    doc, _, questions, index = corpus
    env = harness.DocAtlasEnv(doc, index, 192)
    env.reset(questions[0])
    obs, _, _, _ = env.step({"tool": "note", "slot": 0, "value": "Zorblax", "block": doc.blocks[3].id})
    assert "not in block" in obs["error"] and env.notes == []
    obs, _, _, _ = env.step({"tool": "note", "slot": 0, "value": "the", "block": "nope"})
    assert "unknown block" in obs["error"]


def test_disabled_tools_are_refused(corpus):
    doc, _, questions, index = corpus
    env = harness.DocAtlasEnv(doc, index, 192, notes=False, review=False)
    env.reset(questions[0])
    for tool in ("note", "review"):
        obs, _, done, _ = env.step({"tool": tool})
        assert "not available" in obs["error"] and not done


def test_harness_solves_a_chain_question_that_static_rag_misses(corpus):
    doc, _, questions, index = corpus
    chains = [q for q in questions if q.kind == "chain"]
    assert chains
    full = [agents.run_episode(harness.DocAtlasEnv(doc, index, 96), agents.HarnessAgent(), q)["score"] for q in chains]
    rag = [float(agents.static_rag(doc, index, q, 96) == q.answer) for q in chains]
    assert np.mean(full) > np.mean(rag)


def test_episode_ends_at_the_step_limit(corpus):
    doc, _, questions, index = corpus
    env = harness.DocAtlasEnv(doc, index, 96, max_steps=3)
    env.reset(questions[0])
    done, steps = False, 0
    while not done:
        _, _, done, info = env.step({"tool": "search", "query": "nothing"})
        steps += 1
    assert steps == 3 and info["prediction"] == slots.NOT_ANSWERABLE


def test_pdf_text_layer_gives_the_blocks_back(corpus, generated):
    (source,), _ = world.load_generated(generated, "t-", from_pdf=False)  # the text the generator laid out
    assert [b.text for b in corpus[0].blocks] == [" ".join(b.text.split()) for b in source.blocks]
    assert [b.id for b in corpus[0].blocks] == [b.id for b in source.blocks]


def test_without_review_the_agent_keeps_its_own_decomposition(corpus):
    """The no-review ablation removes only the review tool: multi-slot questions (difference, total, highest, chain)
    are still answered from every slot (with the old flat reading of the question they all scored 0)."""
    doc, _, questions, index = corpus
    multi = [q for q in questions if q.kind in ("difference", "total", "highest", "chain")]
    runs = [agents.run_episode(harness.DocAtlasEnv(doc, index, 192, review=False, max_steps=24),
                               agents.HarnessAgent(), q) for q in multi]
    assert all(s["tool"] != "review" for r in runs for s in r["trajectory"])
    assert np.mean([r["score"] for r in runs]) >= 0.5


def test_direct_input_reads_the_whole_document_or_states_the_cut(corpus):
    """The paper's direct input: the oracle reader over the whole document answers every question (an upper bound);
    cut to a context of 200 tokens it misses the evidence that lies further in."""
    doc, _, questions, _ = corpus
    whole = [float(agents.direct_input(doc, q) == q.answer) for q in questions]
    cut = [float(agents.direct_input(doc, q, 200) == q.answer) for q in questions]
    assert np.mean(whole) == 1.0 and np.mean(cut) < np.mean(whole)

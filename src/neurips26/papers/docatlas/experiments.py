"""One seed's run: build the evaluation and training corpora, train the tool policy, evaluate every agent at every
context budget. Returns the per-episode rows, the RL learning curve and the trajectories."""

from __future__ import annotations

import numpy as np
import pandas as pd
from tqdm import tqdm

from neurips26.papers.docatlas import agents, harness, policy, retrieval, scorer, slots
from neurips26.papers.docatlas.world import load_generated, spec_from_config

ABLATIONS = {"harness": {}, "no_notes": {"notes": False}, "no_review": {"review": False},
             "no_refine": {"refine": False}}


def make_encoder(cfg):
    return retrieval.Encoder(cfg.retrieval.max_tokens) if cfg.retrieval.dense else retrieval.HashEncoder()


TRAIN_SEED_OFFSET = 100_000  # the training reports: the shared generator at seed + this (a separate stream)


def generated_corpus(cfg, seed: int, split: str, encoder) -> tuple[dict, list]:
    """{doc id: (Document, Index)} and [(doc id, question)] for one split ("eval" or "train"), from the shared
    generator (`common/docbench/doc_benchmark` with its chain extension), written to a temporary folder and read back; block
    text is what the PDF text layer gives back when `corpus.pdf` is set (see pdf.py)."""
    import tempfile
    from dataclasses import replace

    from neurips26.common.docbench import doc_benchmark as B

    spec, chains, distractors = spec_from_config(cfg.corpus)
    if split == "train":
        spec = replace(spec, n_docs=int(cfg.corpus.train_docs))
    with tempfile.TemporaryDirectory() as tmp:
        B.generate(tmp, spec, seed + (TRAIN_SEED_OFFSET if split == "train" else 0), chains, distractors)
        docs, qs = load_generated(tmp, f"{split}{seed}-", from_pdf=bool(cfg.corpus.pdf))
    index = {d.id: (d, retrieval.Index([b.text for b in d.blocks], encoder, cfg.retrieval.alpha)) for d in docs}
    return index, [(q.doc, q) for q in qs]


def _env(cfg, doc_index, budget, **flags):
    return harness.DocAtlasEnv(*doc_index, budget, max_steps=cfg.harness.max_steps, k=cfg.harness.candidates,
                               tree_weight=cfg.harness.tree_weight, **flags)


def train_policy(cfg, seed: int, encoder):
    docs, questions = generated_corpus(cfg, seed, "train", encoder)
    rng = np.random.default_rng([seed, 2])
    passes = ([questions[i] for i in rng.permutation(len(questions))] for _ in range(cfg.rl.max_passes))
    return policy.train(lambda key: _env(cfg, docs[key], cfg.rl.budget), passes, rng, cfg.rl)


def _row(seed, corpus, agent, budget, q, prediction, steps=0, max_tokens=0, truncated=False):
    return {"seed": seed, "corpus": corpus, "agent": agent, "budget": budget, "qid": q.id, "qtype": q.qtype,
            "kind": q.kind, "answer_format": q.answer_format, "answer": q.answer, "prediction": prediction,
            "score": scorer.score(q.answer, prediction, q.answer_format), "steps": steps, "max_tokens": max_tokens,
            "pages": len(q.evidence_pages), "truncated": truncated}


def _direct(cfg, doc, q) -> tuple[str, int, bool]:
    """The paper's direct input: (prediction, tokens shown, truncated?). `direct.context_tokens` null = the whole
    document (the extractive reader has no context limit); a number = the reader's context, the document cut to it."""
    limit = cfg.get("direct", {}).get("context_tokens")
    size = agents.document_tokens(doc) + harness.ntokens(q.text)
    shown = size if limit is None else min(size, int(limit))
    return agents.direct_input(doc, q, limit), shown, shown < size


def evaluate(cfg, seed: int, corpus: str, docs: dict, questions: list, decide_rl, decide_init) -> tuple[list, list]:
    """Every agent on every question at every budget. Direct input does not depend on B: it is read once per question
    and its row repeated per budget. The untrained policy (rl_init) runs at the main budget only."""
    rows, trajectories = [], []
    direct = {q.id: _direct(cfg, docs[key][0], q) for key, q in questions}
    llm = None
    if cfg.get("llm_agent", {}).get("enabled", False):  # optional, off by default; never needed for the claims
        from neurips26.papers.docatlas.llm_agent import LLMAgent

        llm = LLMAgent(cfg.llm_agent.base_url, cfg.llm_agent.model, cfg.llm_agent.key_env)
    harness_agents = {**{k: (v, agents.rule_decision) for k, v in ABLATIONS.items()}, "rl_policy": ({}, decide_rl)}
    for budget in tqdm(list(cfg.budgets), desc=f"{corpus} seed {seed}"):
        for key, q in questions:
            doc, index = docs[key]
            prediction, shown, truncated = direct[q.id]
            rows.append(_row(seed, corpus, "direct", budget, q, prediction, 0, shown, truncated))
            rows.append(_row(seed, corpus, "static_rag", budget, q, agents.static_rag(doc, index, q, budget)))
            drivers = {name: (flags, agents.HarnessAgent(decide)) for name, (flags, decide) in harness_agents.items()}
            if budget == cfg.main_budget:
                drivers["rl_init"] = ({}, agents.HarnessAgent(decide_init))
            if llm is not None and budget == cfg.main_budget:
                drivers["llm"] = ({}, llm)
            for name, (flags, agent) in drivers.items():
                r = agents.run_episode(_env(cfg, docs[key], budget, **flags), agent, q)
                rows.append(_row(seed, corpus, name, budget, q, r["prediction"], r["steps"], r["max_tokens"]))
                trajectories.append({"seed": seed, "corpus": corpus, "agent": name, "budget": budget, "qid": q.id,
                                     "question": q.text, "answer": q.answer, "prediction": r["prediction"],
                                     "score": rows[-1]["score"], "notes": r["notes"], "steps": r["trajectory"]})
    return rows, trajectories


def run(cfg, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    encoder = make_encoder(cfg)
    rl, curve, init = train_policy(cfg, seed, encoder)
    docs, questions = generated_corpus(cfg, seed, "eval", encoder)
    rows, trajectories = evaluate(cfg, seed, "generated", docs, questions, rl, init)
    if cfg.manuals.enabled:
        from neurips26.papers.docatlas.manuals import manual_corpus

        mdocs, mquestions = manual_corpus(cfg, seed, encoder)
        more, more_traj = evaluate(cfg, seed, "r_manuals", mdocs, mquestions, rl, init)
        rows, trajectories = rows + more, trajectories + more_traj
    curve = pd.DataFrame(curve).assign(seed=seed)
    return pd.DataFrame(rows), curve, trajectories


def check_parser_covers(questions) -> None:
    for _, q in questions:
        slots.parse(q.text)

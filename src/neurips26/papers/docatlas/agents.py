"""Agents: the one-shot baselines (direct input, static top-k RAG) and the harness agent, whose read -> note -> review
cycle is fixed and whose decisions (read more / search again / answer) come from a rule or from a learned policy.

An agent sees only observations. It decomposes the question itself (`slots.parse`, as an LLM agent would plan from the
question text), so every agent and every ablation has the same decomposition. Its content memory is the harness's note
store as shown in the observation; with notes switched off it can combine only what one observation shows. Without the
review tool it judges what is still missing from its own plan and the notes the observation shows (which drop the
oldest notes when they would take more than half the budget); review reads the whole note store.
"""

from __future__ import annotations

import numpy as np

from neurips26.papers.docatlas import slots
from neurips26.papers.docatlas.harness import ntokens, trim

DECISIONS = ("read_more", "search", "answer")
N_FEATURES = 11


def _fit(texts: list[str], room: int) -> list[str]:
    out = []
    for t in texts:
        if room <= 0:
            break
        out.append(trim(t, room))
        room -= ntokens(out[-1])
    return out


def document_tokens(doc) -> int:
    return sum(ntokens(b.text) for b in doc.blocks)


def direct_input(doc, question, context_tokens: int | None = None) -> str:
    """The paper's direct-input baseline: the same reader given the whole document, or its first `context_tokens`
    tokens (minus the question) when the reader's context holds less (the truncation is recorded by the caller)."""
    texts = [b.text for b in doc.blocks]
    if context_tokens is not None:
        texts = _fit(texts, int(context_tokens) - ntokens(question.text))
    return slots.read_context(slots.parse(question.text), texts)


def static_rag(doc, index, question, budget: int) -> str:
    """The reader over the top blocks for the question (hybrid score, one retrieval), as many as fit in B tokens."""
    order = np.argsort(-index.scores(question.text), kind="stable")
    room = budget - ntokens(question.text)
    return slots.read_context(slots.parse(question.text), _fit([doc.blocks[i].text for i in order], room))


def rule_decision(x: np.ndarray, mask: np.ndarray) -> int:
    """The rule controller: after a find, search for the next slot; else read one more batch of candidates; else
    search again (twice without progress at most); else answer."""
    found, reads, fails, left = x[3], x[4] * 3, x[5] * 4, x[7]
    if found:
        return 1
    if left and reads < 2 and mask[0]:
        return 0
    return 1 if fails < 2 else 2


class HarnessAgent:
    def __init__(self, decide=rule_decision):
        self.decide = decide

    def reset(self) -> None:
        self.queue: list[dict] = []
        self.plan: slots.Plan | None = None  # the agent's own decomposition of the question
        self.reviewed = False
        self.reads = self.fails = 0
        self.found = False

    # ---- what the agent knows ----
    def _plan(self, question: str) -> slots.Plan:
        if self.plan is None:
            self.plan = slots.parse(question)
        return self.plan

    def _unfilled(self, obs) -> list[int]:
        """Without review: the slots of the agent's plan that no shown note fills."""
        values = self._values(obs)
        return [i for i in range(len(self._plan(obs["question"]).slots)) if i not in values]

    def _values(self, obs) -> dict[int, str]:
        return {n.slot: n.value for n in obs["notes"]}

    def _extract(self, obs, plan) -> list[tuple[int, str, str]]:
        """(slot, value, block) for every unfilled slot the shown blocks state; chain subjects from notes or from
        values found in this same observation."""
        values, found = self._values(obs), []
        for i, slot in enumerate(plan.slots):
            if i in values:
                continue
            subject = slots.resolve(plan, values)[i]
            for block, _, text in obs["shown"]:
                v = slots.extract(slot, subject, text)
                if v is not None:
                    values[i] = v
                    found.append((i, v, block))
                    break
        return found

    def features(self, obs) -> np.ndarray:
        plan = self._plan(obs["question"])
        n = len(plan.slots)
        filled = len(self._values(obs))
        return np.array([1.0, (n - filled) / 2, n / 2, float(self.found), self.reads / 3, min(self.fails, 4) / 4,
                         obs["steps"] / obs["max_steps"], float(obs["candidates_left"] > 0),
                         float(plan.combine == "chain"), float(plan.combine in ("difference", "total", "highest")),
                         len(obs["notes"]) / 3])

    def _answer(self, obs, extra: dict | None = None) -> dict:
        values = self._values(obs)
        values.update(extra or {})
        return {"tool": "answer", "text": slots.combine(self._plan(obs["question"]), values)}

    def _decide(self, obs) -> dict:
        mask = np.array([obs["candidates_left"] > 0, True, True])
        choice = DECISIONS[self.decide(self.features(obs), mask)]
        if choice == "read_more":
            return {"tool": "read"}
        if choice == "search":
            self.fails += 0 if self.found else 1
            self.reads, self.found = 0, False
            return {"tool": "search", "query": obs["question"]}
        return self._answer(obs)

    def act(self, obs) -> dict:
        if self.queue:
            return self.queue.pop(0)
        tools, tool = obs["tools"], obs["tool"]
        if tool == "reset":
            return {"tool": "review"} if "review" in tools else {"tool": "search", "query": obs["question"]}
        if tool == "review":
            if not self.reviewed:  # the first review starts the search
                self.reviewed = True
                return {"tool": "search", "query": obs["question"]}
            return self._answer(obs) if not obs["review"]["unfilled"] else self._decide(obs)
        if tool == "search":
            return {"tool": "read"} if obs["candidates"] else self._decide(obs)
        if tool == "read":
            found = self._extract(obs, self._plan(obs["question"]))
            self.reads += 1
            self.found = bool(found)
            if found:
                self.fails = 0
            if found and "note" in tools:
                self.queue = [{"tool": "note", "slot": i, "value": v, "block": b} for i, v, b in found]
                if "review" in tools:
                    self.queue.append({"tool": "review"})
                return self.queue.pop(0)
            if found:  # no note store: answer now if this observation alone fills every slot
                plan = self._plan(obs["question"])
                if len(found) == len(plan.slots):
                    return self._answer(obs, {i: v for i, v, _ in found})
            return self._decide(obs)
        if tool == "note" and "review" not in tools:  # the last note is in: the agent's own check replaces review
            return self._answer(obs) if not self._unfilled(obs) else self._decide(obs)
        return self._decide(obs)  # after a rejected tool call


def run_episode(env, agent, question) -> dict:
    """One episode; returns the prediction, score, steps, the largest observation and the trajectory."""
    obs = env.reset(question)
    agent.reset()
    largest, done, info = obs["tokens"], False, {}
    while not done:
        obs, _, done, info = env.step(agent.act(obs))
        largest = max(largest, obs["tokens"])
    return {"prediction": info["prediction"], "score": info["score"], "steps": info["steps"], "max_tokens": largest,
            "trajectory": env.trajectory, "notes": [(n.slot, n.value, n.block) for n in env.notes]}

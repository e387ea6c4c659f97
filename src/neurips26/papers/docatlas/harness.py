"""The DocAtlas harness as a gym-style environment: reset(question) -> observation; step(action) -> (observation,
reward, done, info). The harness, not the agent, decides what is searched, read, stored, reviewed and shown.

State: the document tree (document -> section -> page -> block, each node with a summary), the note store (cited slot
values) and the context budget B. Every observation (question, notes, the last tool's output) is rendered as text of at
most B whitespace tokens; the tool output is trimmed to what is left after the question and the notes.

Tools (an action is a dict with "tool" and its arguments):
  search(query)        hybrid BM25 + MiniLM over unread blocks, re-scored by the tree (a block's section score is added);
                       with refinement the harness rewrites the query for the first unfilled slot, chain subjects filled
                       from the notes (self-improving retrieval). Shows candidate ids + page + summary.
  read(ids | None)     the selected blocks (default: the next unread candidates), trimmed to the budget.
  note(slot, value, block)  appends a cited note; rejected unless the block exists and its text contains the value.
  review()             the question's unfilled slots (the harness's question parser + the notes).
  answer(text)         ends the episode; info carries the MMLongBench-Doc score.
Ablations switch off notes, review or query refinement. Every episode's actions are kept in `trajectory`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from neurips26.papers.docatlas import scorer, slots
from neurips26.papers.docatlas.world import Document, Question

SUMMARY_TOKENS = 8


@dataclass(frozen=True)
class Note:
    slot: int
    value: str
    block: str
    page: int

    def render(self) -> str:
        return f"[{self.slot}]={self.value} ({self.block} p{self.page})"


@dataclass
class Tree:
    """document -> section -> page -> block with summaries (a section/page summary: its title / first words)."""

    doc: Document
    sections: dict[int, dict] = field(default_factory=dict)

    def __post_init__(self):
        for i, b in enumerate(self.doc.blocks):
            sec = self.sections.setdefault(b.section, {"title": b.section_title, "pages": {}})
            sec["pages"].setdefault(b.page, []).append(i)
        self.index = {b.id: i for i, b in enumerate(self.doc.blocks)}
        self.section_of = np.array([b.section for b in self.doc.blocks])

    def summary(self, i: int) -> str:
        b = self.doc.blocks[i]
        return " ".join(b.text.split()[:SUMMARY_TOKENS])

    def section_scores(self, s: np.ndarray, top: int = 3) -> np.ndarray:
        """Each block's section score: the mean of the section's `top` best block scores."""
        out = np.zeros_like(s)
        for sec in self.sections:
            m = self.section_of == sec
            out[m] = np.sort(s[m])[-top:].mean()
        return out


def ntokens(text: str) -> int:
    return len(text.split())


def trim(text: str, n: int) -> str:
    return " ".join(text.split()[:max(n, 0)])


class DocAtlasEnv:
    def __init__(self, doc: Document, index, budget: int, notes: bool = True, review: bool = True, refine: bool = True,
                 max_steps: int = 16, k: int = 6, tree_weight: float = 0.3, parser=slots.parse):
        self.doc, self.index, self.budget = doc, index, int(budget)
        self.flags = {"notes": notes, "review": review, "refine": refine}
        self.max_steps, self.k, self.tree_weight, self.parser = max_steps, k, tree_weight, parser
        self.tree = Tree(doc)
        self.tools = ["search", "read", "answer"] + (["note"] if notes else []) + (["review"] if review else [])

    # ---- episode ----
    def reset(self, question: Question) -> dict:
        self.question, self.plan = question, self.parser(question.text)
        self.notes: list[Note] = []
        self.read_ids: set[int] = set()
        self.candidates: list[int] = []
        self.steps, self.done, self.trajectory = 0, False, []
        return self._observe("reset", None)

    def step(self, action: dict) -> tuple[dict, float, bool, dict]:
        if self.done:
            raise RuntimeError("episode is over: call reset")
        tool = action.get("tool")
        self.steps += 1
        info: dict = {}
        if tool not in self.tools:
            result = {"error": f"tool {tool!r} is not available (tools: {', '.join(self.tools)})"}
        else:
            result = getattr(self, f"_{tool}")(action, info)
        self.trajectory.append(self._log(action, result))
        if tool != "answer" and self.steps >= self.max_steps:
            result = self._answer({"text": slots.NOT_ANSWERABLE, "forced": True}, info)
            self.trajectory.append({"tool": "answer", "text": slots.NOT_ANSWERABLE, "forced": True})
            tool = "answer"
        obs = self._observe(tool, result)
        return obs, info.get("score", 0.0), self.done, info

    # ---- tools ----
    def refined_query(self, query: str) -> str:
        if not self.flags["refine"]:
            return query
        values = {n.slot: n.value for n in self.notes}
        subjects = slots.resolve(self.plan, values)
        for i, s in enumerate(self.plan.slots):
            if i not in values:
                who = subjects[i] or ""
                year = str(s.year) if s.year else ""
                return " ".join(x for x in (who, slots.KEYWORDS[s.rel], year) if x) if who else \
                    f"{query} {slots.KEYWORDS[s.rel]}"
        return query

    def _search(self, action, info) -> dict:
        query = self.refined_query(str(action.get("query", self.question.text)))
        s = self.index.scores(query)
        s = s + self.tree_weight * self.tree.section_scores(s)
        order = [int(i) for i in np.argsort(-s, kind="stable") if int(i) not in self.read_ids]
        self.candidates = order[: self.k]
        return {"query": query, "candidates": list(self.candidates)}

    def _read(self, action, info) -> dict:
        ids = action.get("ids")
        chosen = [self.tree.index[i] for i in ids if i in self.tree.index] if ids else \
            [i for i in self.candidates if i not in self.read_ids]
        return {"blocks": chosen}  # trimmed to the budget in _observe; only what is shown counts as read

    def _note(self, action, info) -> dict:
        slot, value, block = action.get("slot"), str(action.get("value", "")), action.get("block")
        if block not in self.tree.index:
            return {"error": f"note cites unknown block {block!r}"}
        b = self.doc.blocks[self.tree.index[block]]
        if not isinstance(slot, int) or not 0 <= slot < len(self.plan.slots):
            return {"error": f"note names slot {slot!r}; the question has {len(self.plan.slots)}"}
        if not value or value not in " ".join(b.text.split()):
            return {"error": f"note value {value!r} is not in block {block}"}
        self.notes = [n for n in self.notes if n.slot != slot] + [Note(slot, value, block, b.page)]
        return {"noted": slot}

    def unfilled(self) -> list[dict]:
        values = {n.slot: n.value for n in self.notes}
        subjects = slots.resolve(self.plan, values)
        return [{"slot": i, "rel": s.rel, "subject": subjects[i], "year": s.year}
                for i, s in enumerate(self.plan.slots) if i not in values]

    def _review(self, action, info) -> dict:
        return {"combine": self.plan.combine, "slots": len(self.plan.slots), "unfilled": self.unfilled()}

    def _answer(self, action, info) -> dict:
        text = str(action.get("text", slots.NOT_ANSWERABLE))
        self.done = True
        info.update(prediction=text, steps=self.steps,
                    score=scorer.score(self.question.answer, text, self.question.answer_format))
        return {"answer": text}

    # ---- observation ----
    def _observe(self, tool, result) -> dict:
        """The text shown to the agent, never more than `budget` tokens, and the same content as structured fields."""
        head = f"Q: {self.question.text}"
        notes = list(self.notes)
        while notes and ntokens(head + " NOTES: " + " ".join(n.render() for n in notes)) > self.budget // 2:
            notes = notes[1:]  # the oldest notes drop out first when they would crowd out the tool output
        lines = [head] + (["NOTES: " + " ".join(n.render() for n in notes)] if notes else [])
        left = self.budget - sum(ntokens(x) for x in lines)
        obs = {"question": self.question.text, "notes": notes, "tool": tool, "tools": list(self.tools),
               "steps": self.steps, "max_steps": self.max_steps, "done": self.done, "shown": [], "candidates": [],
               "review": None, "error": None}
        body: list[str] = []
        if result and "error" in result:
            body, obs["error"] = [trim("ERROR: " + result["error"], left)], result["error"]
        elif tool == "search":
            for i in result["candidates"]:
                b = self.doc.blocks[i]
                line = f"{b.id} p{b.page} {self.tree.summary(i)}"
                if ntokens(line) > left - sum(ntokens(x) for x in body):
                    break
                body.append(line)
                obs["candidates"].append(b.id)
        elif tool == "read":
            for i in result["blocks"]:
                b = self.doc.blocks[i]
                room = left - sum(ntokens(x) for x in body) - 2
                if room <= 0:
                    break
                text = trim(b.text, room)
                body.append(f"[{b.id} p{b.page}] {text}")
                obs["shown"].append((b.id, b.page, text))
                self.read_ids.add(i)
        elif tool == "review":
            obs["review"] = result
            todo = "; ".join(f"[{u['slot']}] {u['rel']} of {u['subject'] or '?'}" + (f" in {u['year']}" if u["year"] else "")
                             for u in result["unfilled"]) or "none"
            body = [trim(f"REVIEW: combine={result['combine']} unfilled: {todo}", left)]
        elif tool in ("note", "answer") and result:
            body = [trim(" ".join(f"{k}={v}" for k, v in result.items()), left)]
        obs["text"] = "\n".join(lines + body)
        obs["tokens"] = ntokens(obs["text"])
        obs["candidates_left"] = sum(1 for i in self.candidates if i not in self.read_ids)
        return obs

    def _log(self, action, result) -> dict:
        entry = {"tool": action.get("tool")}
        entry.update({k: v for k, v in action.items() if k != "tool"})
        if result:
            entry.update({k: (v if not isinstance(v, list) else [self.doc.blocks[i].id if isinstance(i, int) else i
                                                                   for i in v][:8])
                          for k, v in result.items() if k in ("query", "candidates", "blocks", "error")})
        return entry

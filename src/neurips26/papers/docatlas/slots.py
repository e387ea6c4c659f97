"""Question templates, the question parser (a question -> its slots and how they combine) and the extractive reader.

A slot asks one relation of one subject (and a year for revenue); a chain slot's subject is the value of an earlier
slot. The parser reads only the question text. The reader extracts a slot's value from block text with the exact fact
pattern of that relation; distractor sentences (forecasts, former heads, ...) never match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FORMATS = {"head": "Str", "city": "Str", "headcount": "Int", "revenue": "Float", "runs": "Str"}
NOT_ANSWERABLE = "Not answerable"

_ASK = {"head": "Who heads the {s} division?", "city": "In which city is the {s} division headquartered?",
        "headcount": "How many people does the {s} division employ?",
        "revenue": "What revenue did the {s} division report in {y}?"}
_CHAIN = {"head": "Who heads the division that runs Project {p}?",
          "city": "In which city is the division that runs Project {p} headquartered?",
          "revenue": "What revenue did the division that runs Project {p} report in {y}?"}
_SECTION = "Which section number has the title '{s}'?"
_ORDER = "Which section comes first, '{a}' or '{b}'?"
_SUM = "How many people do the {a} and {b} divisions employ in total?"
_COMPARE = "Which division reported higher revenue in {y}, {a} or {b}?"

# relation -> the fact sentence's pattern; {s} is the subject, {y} the year; the value is group "v"
_FACT = {"head": r"The {s} division is headed by (?P<v>[A-Z][a-z]+ [A-Z][a-z]+)\.",
         "city": r"The {s} division is headquartered in (?P<v>[A-Z][a-z]+)\.",
         "headcount": r"The {s} division employs (?P<v>\d+) people\.",
         "revenue": r"In {y}, the {s} division reported revenue of (?P<v>\d+(?:\.\d+)?) million\.",
         "runs": r"Project {s} is run by the (?P<v>[A-Z][a-z]+) division\.",
         "section": r"(?:^|\s)(?P<v>\d+(?:\.\d+)+) {s}(?!\w)"}
# words a refined query adds for a relation (the fact sentence's own words)
KEYWORDS = {"head": "division is headed by", "city": "division is headquartered in", "headcount": "division employs people",
            "revenue": "division reported revenue of million", "runs": "Project is run by the division",
            "section": "section"}


def ask(rel: str, s: str, y: int | None = None) -> str:
    return _ASK[rel].format(s=s, y=y)


def ask_chain(rel: str, p: str, y: int | None = None) -> str:
    return _CHAIN[rel].format(p=p, y=y)


def ask_section(title: str) -> str:
    return _SECTION.format(s=title)


def ask_order(a: str, b: str) -> str:
    return _ORDER.format(a=a, b=b)


def ask_sum(a: str, b: str) -> str:
    return _SUM.format(a=a, b=b)


def ask_compare(a: str, b: str, y: int) -> str:
    return _COMPARE.format(a=a, b=b, y=y)


@dataclass(frozen=True)
class Slot:
    rel: str
    subject: str | None  # None: the value of slot `ref`
    year: int | None = None
    ref: int | None = None

    def describe(self, subject: str | None) -> str:
        who = subject or f"<answer of slot {self.ref}>"
        return f"{self.rel} of {who}" + (f" in {self.year}" if self.year else "")


@dataclass(frozen=True)
class Plan:
    slots: tuple[Slot, ...]
    combine: str  # one | chain | sum | compare | order


def _template_regex(template: str, name_pattern: str = "[A-Z][a-z]+") -> re.Pattern:
    pattern = re.escape(template)
    for name in ("s", "p", "a", "b"):
        pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>{name_pattern})")
    return re.compile("^" + pattern.replace(re.escape("{y}"), r"(?P<y>\d{4})") + "$")


_PARSERS = [(_template_regex(t), "one", rel) for rel, t in _ASK.items()]
_PARSERS += [(_template_regex(t), "chain", rel) for rel, t in _CHAIN.items()]
_PARSERS += [(_template_regex(_SUM), "sum", "headcount"), (_template_regex(_COMPARE), "compare", "revenue"),
             (_template_regex(_SECTION, "[^']+"), "one", "section"), (_template_regex(_ORDER, "[^']+"), "order", "section")]


def parse(question: str) -> Plan:
    """The slots a question asks for; ValueError for a question outside the templates."""
    for regex, combine, rel in _PARSERS:
        m = regex.match(question.strip())
        if not m:
            continue
        g = m.groupdict()
        y = int(g["y"]) if g.get("y") else None
        if combine == "one":
            return Plan((Slot(rel, g["s"], y),), combine)
        if combine == "chain":
            return Plan((Slot("runs", g["p"]), Slot(rel, None, y, ref=0)), combine)
        return Plan((Slot(rel, g["a"], y), Slot(rel, g["b"], y)), combine)
    raise ValueError(f"question outside the templates: {question!r}")


def flat_slot(question: str) -> Slot:
    """Without the harness's review (no decomposition): the final relation asked of the first name in the question."""
    plan = parse(question)
    last = plan.slots[-1]
    return Slot(last.rel, plan.slots[0].subject, last.year)


def resolve(plan: Plan, values: dict[int, str]) -> list[str | None]:
    """Each slot's subject, chain subjects taken from the values found so far (None while unknown)."""
    return [s.subject if s.ref is None else values.get(s.ref) for s in plan.slots]


def extract(slot: Slot, subject: str | None, text: str) -> str | None:
    """The slot's value if `text` states it with the relation's fact pattern, else None."""
    if subject is None:
        return None
    text = " ".join(text.split())
    m = re.search(_FACT[slot.rel].replace("{s}", re.escape(subject)).replace("{y}", str(slot.year)), text)
    return m.group("v") if m else None


def combine(plan: Plan, values: dict[int, str]) -> str:
    """The final answer from the slot values; NOT_ANSWERABLE when a needed value is missing."""
    if any(i not in values for i in range(len(plan.slots))):
        return NOT_ANSWERABLE
    if plan.combine in ("one", "chain"):
        return values[len(plan.slots) - 1]
    if plan.combine == "sum":
        return str(sum(int(values[i]) for i in range(len(plan.slots))))
    if plan.combine == "order":  # the title whose section number comes first
        a, b = (tuple(int(x) for x in values[i].split(".")) for i in range(2))
        return plan.slots[0].subject if a <= b else plan.slots[1].subject
    a, b = (float(values[i]) for i in range(2))
    return plan.slots[0].subject if a >= b else plan.slots[1].subject


def read_context(plan: Plan, texts: list[str]) -> str:
    """A one-shot extractive read of a context (direct input, static RAG): fill slots in order, chain subjects from
    earlier slots, then combine."""
    values: dict[int, str] = {}
    for i, slot in enumerate(plan.slots):
        subject = resolve(plan, values)[i]
        for text in texts:
            v = extract(slot, subject, text)
            if v is not None:
                values[i] = v
                break
    return combine(plan, values)

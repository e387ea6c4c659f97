"""The question parser (a question -> its slots and how they combine) and the extractive reader.

The questions are the shared generator's (`common/docbench/doc_benchmark`: lookup, difference, total, highest, and the chain
extension) and the R-manual templates. A slot asks one relation of one subject: a metric of a division in a year, the
division that runs a project, a section's number; a chain slot's subject is the value of an earlier slot. The parser
reads only the question text. The reader extracts a slot's value from block text with the exact fact pattern of that
relation; distractors (the same metric in another year, another division, a project's feedback) never match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from neurips26.common.docbench import doc_benchmark as B

NOT_ANSWERABLE = "Not answerable"
UNITS = dict(B.METRICS)  # metric -> unit; a metric is a slot relation (subject: a division, with a year)
FORMATS = {**{m: "Int" for m in UNITS}, "runs": "Str", "section": "Str"}

# the shared generator's question texts (common/docbench/doc_benchmark: _question, chain_question) and the manual templates
_METRIC = "(?P<m>" + "|".join(re.escape(m) for m in UNITS) + ")"
_NAME = "[A-Z][a-z]+"
_NAMES = rf"(?P<names>{_NAME}(?:, {_NAME})* and {_NAME})"
_SECTION = "Which section number has the title '{s}'?"
_ORDER = "Which section comes first, '{a}' or '{b}'?"
_PARSERS = [
    (re.compile(rf"^What was the {_METRIC} of the (?P<s>{_NAME}) division in (?P<y>\d{{4}})\?$"), "one"),
    (re.compile(rf"^What was the {_METRIC} of the division that runs Project (?P<p>{_NAME}) in (?P<y>\d{{4}})\?$"),
     "chain"),
    (re.compile(rf"^By how much did the {_METRIC} of the (?P<a>{_NAME}) division exceed that of the (?P<b>{_NAME}) "
                rf"division in (?P<y>\d{{4}})\?$"), "difference"),
    (re.compile(rf"^What was the combined {_METRIC} of the {_NAMES} divisions in (?P<y>\d{{4}})\?$"), "total"),
    (re.compile(rf"^Which of the {_NAMES} divisions reported the highest {_METRIC} in (?P<y>\d{{4}})\?$"), "highest"),
]

# relation -> the fact sentence's pattern; {s} is the subject, {y} the year; the value is group "v"
_FACT = {m: rf"In {{y}}, the {{s}} division reported {re.escape(m)} of (?P<v>\d{{1,3}}(?:,\d{{3}})*) {re.escape(u)}\."
         for m, u in UNITS.items()}
_FACT.update({"runs": r"Project {s} is run by the (?P<v>[A-Z][a-z]+) division\.",
              "section": r"(?:^|\s)(?P<v>\d+(?:\.\d+)+) {s}(?!\w)"})
# words a refined query adds for a relation (the fact sentence's own words)
KEYWORDS = {**{m: f"division reported {m} of {u}" for m, u in UNITS.items()},
            "runs": "Project is run by the division", "section": "section"}


def ask(metric: str, s: str, y: int) -> str:
    return B._question("lookup", [s], metric, y)


def ask_chain(metric: str, p: str, y: int) -> str:
    return B.chain_question(p, metric, y)


def ask_section(title: str) -> str:
    return _SECTION.format(s=title)


def ask_order(a: str, b: str) -> str:
    return _ORDER.format(a=a, b=b)


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


def _template_regex(template: str) -> re.Pattern:
    pattern = re.escape(template)
    for name in ("s", "a", "b"):
        pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>[^']+)")
    return re.compile("^" + pattern + "$")


_PARSERS += [(_template_regex(_SECTION), "section"), (_template_regex(_ORDER), "order")]


def parse(question: str) -> Plan:
    """The slots a question asks for; ValueError for a question outside the templates."""
    for regex, combine in _PARSERS:
        m = regex.match(question.strip())
        if not m:
            continue
        g = m.groupdict()
        y = int(g["y"]) if g.get("y") else None
        if combine == "section":
            return Plan((Slot("section", g["s"]),), "one")
        if combine == "order":
            return Plan((Slot("section", g["a"]), Slot("section", g["b"])), "order")
        if combine == "one":
            return Plan((Slot(g["m"], g["s"], y),), "one")
        if combine == "chain":
            return Plan((Slot("runs", g["p"]), Slot(g["m"], None, y, ref=0)), "chain")
        names = [g["a"], g["b"]] if combine == "difference" else g["names"].replace(" and ", ", ").split(", ")
        return Plan(tuple(Slot(g["m"], n, y) for n in names), combine)
    raise ValueError(f"question outside the templates: {question!r}")


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


def _num(v: str) -> int:
    return int(v.replace(",", ""))


def combine(plan: Plan, values: dict[int, str]) -> str:
    """The final answer from the slot values (as the shared generator's `answer_of` computes it from the facts);
    NOT_ANSWERABLE when a needed value is missing."""
    n = len(plan.slots)
    if any(i not in values for i in range(n)):
        return NOT_ANSWERABLE
    if plan.combine == "order":  # the title whose section number comes first
        a, b = (tuple(int(x) for x in values[i].split(".")) for i in range(2))
        return plan.slots[0].subject if a <= b else plan.slots[1].subject
    last = plan.slots[-1]
    if plan.combine in ("one", "chain"):
        return str(_num(values[n - 1])) if last.rel in UNITS else values[n - 1]
    op = "lookup" if plan.combine == "one" else plan.combine
    return B.answer_of(op, [s.subject for s in plan.slots], [_num(values[i]) for i in range(n)])


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

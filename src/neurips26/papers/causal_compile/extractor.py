"""The rule-based extractor: regular expressions over abstract sentences -> raw estimand records (validated later by
the schema, so a malformed statement is rejected with a reason rather than silently repaired)."""

from __future__ import annotations

import re

NUMBER = r"(?<![\w/.])-?\d+(?:\.\d+)?"  # not the "2" of "kg/m2"
CI = re.compile(rf"[(\[]\s*95%\s*(?:CI|confidence interval)\s*[,:]?\s*(?P<low>{NUMBER})\s*(?:-|to|,)\s*(?P<high>{NUMBER})")
SCALES = [("SMD", r"standardi[sz]ed mean difference|\bSMD\b|Cohen's d"), ("MD", r"mean difference"),
          ("HR", r"hazard ratio|\bHR\b"), ("OR", r"odds ratio|\bOR\b"), ("RR", r"relative risk|risk ratio|\bRR\b")]
HORIZON = re.compile(r"\b(?:at|after|over)\s+(?P<value>\d+(?:\.\d+)?)\s+(?P<unit>[a-z]+)", re.I)
CONTRAST = re.compile(r"one-standard-deviation (?P<dir>higher|lower) (?P<exposure>.+?)(?= was | changed |$)")
POPULATION = re.compile(r"Among (?P<group>older adults|younger adults|adults)\s*\(aged (?P<lo>\d+)(?: to (?P<hi>\d+))?")
BASELINE = re.compile(rf"in the reference group was (?P<p0>{NUMBER})%")
SD = re.compile(rf"\bSD (?P<sd>{NUMBER})")
DESIGNS = {"randomized controlled trial": "rct", "cohort study": "cohort", "case-control study": "case_control"}


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.])\s+(?=[A-Z])", text) if s]


def find_scale(sentence: str) -> str | None:
    for scale, pattern in SCALES:
        if re.search(pattern, sentence):
            return scale
    return None


class Vocabulary:
    """Variable names and synonyms -> variable ids (longest match first)."""

    def __init__(self, variables: dict):
        self.names = sorted(((n.lower(), v) for v, spec in variables.items() for n in spec["names"]),
                            key=lambda item: -len(item[0]))

    def lookup(self, phrase: str) -> str | None:
        phrase = phrase.lower().strip(" ,.")
        return next((v for n, v in self.names if phrase == n), None)

    def mentioned(self, text: str) -> list[str]:
        found, text = [], text.lower()
        for n, v in self.names:
            if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) and v not in found:
                found.append(v)
                text = text.replace(n, " ")
        return found


def extract_abstract(study_id: str, text: str, vocab: Vocabulary) -> list[dict]:
    """Every effect statement of one generated abstract as a raw record (fields named as in schema.Estimand)."""
    design = next((d for phrase, d in DESIGNS.items() if phrase in text), "cohort")
    n_match = re.search(r"we followed (\d+)", text)
    records = []
    for sentence in sentences(text):
        ci = CI.search(sentence)
        scale = find_scale(sentence)
        contrast = CONTRAST.search(sentence)
        if not (ci and scale and contrast):
            continue
        estimate = re.findall(NUMBER, sentence[:ci.start()])
        exposure = vocab.lookup(contrast["exposure"])
        others = [v for v in vocab.mentioned(sentence.replace(contrast["exposure"], " ")) if v != exposure]
        horizon = HORIZON.search(sentence)
        pop = POPULATION.search(sentence)
        record = {"study_id": study_id, "scale": scale, "estimate": float(estimate[-1]) if estimate else float("nan"),
                  "ci_low": float(ci["low"]), "ci_high": float(ci["high"]), "design": design,
                  "contrast": {"exposure": exposure or contrast["exposure"], "comparator": "reference level",
                               "outcome": others[0] if others else "unknown",
                               "delta_sd": -1.0 if contrast["dir"] == "lower" else 1.0},
                  "horizon": {"value": float(horizon["value"]), "unit": horizon["unit"]} if horizon else None,
                  "population": ({"group": pop["group"], "min_age": float(pop["lo"]),
                                  "max_age": float(pop["hi"]) + 1 if pop["hi"] else None} if pop
                                 else {"group": "adults", "min_age": 18.0})}
        if n_match:
            record["n"] = int(n_match.group(1))
        if b := BASELINE.search(sentence):
            record["baseline_risk"] = float(b["p0"]) / 100
        if scale == "MD" and (sd := SD.search(sentence)):
            record["outcome_sd"] = float(sd["sd"])
        records.append(record)
    return records

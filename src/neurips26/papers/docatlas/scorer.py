"""The MMLongBench-Doc scorer, re-implemented from the rules of its official `eval/eval_score.py`
(mayubo2333/MMLongBench-Doc): Int exact match after int(float(pred)); Float with a 1% relative tolerance against the
reference, reference/100 and reference*100 (or equal after rounding to the shorter precision, at least 2 digits);
Str/None by ANLS with threshold 0.5 unless the reference is an exact-match kind (URL, file, phone, date, e-mail, "page...",
a.m./p.m.); List: equal lengths, sorted cleaned items, joined exact match for numbers/exact kinds, else the minimum ANLS.
Accuracy is the mean score; F1 is the harmonic mean of recall (score over answerable questions) and precision (score over
answerable questions divided by the number of predictions that are not "Not answerable").

Deviations: list strings are parsed with ast.literal_eval instead of eval (never execute data); the official cleaner's
mile/miles/million suffix stripping discards its result (a no-op there), so it is a no-op here too.
"""

from __future__ import annotations

import ast
import math
import re

NOT_ANSWERABLE = "Not answerable"


def levenshtein(a: str, b: str) -> int:
    if len(a) > len(b):
        a, b = b, a
    row = list(range(len(a) + 1))
    for i2, c2 in enumerate(b):
        new = [i2 + 1]
        for i1, c1 in enumerate(a):
            new.append(row[i1] if c1 == c2 else 1 + min(row[i1], row[i1 + 1], new[-1]))
        row = new
    return row[-1]


def anls(reference: str, prediction: str, threshold: float = 0.5) -> float:
    length = max(len(reference), len(prediction))
    value = 1.0 - (levenshtein(reference, prediction) / length if length else 0.0)
    return 0.0 if value <= threshold else value


def _precision(x: float) -> int:
    s = str(x)
    return len(s.split(".")[-1]) if "." in s else 3


def float_equal(reference, prediction) -> bool:
    reference = float(str(reference).strip().rstrip("%").strip())
    try:
        prediction = float(str(prediction).strip().rstrip("%").strip())
    except ValueError:
        return False
    for item in (reference / 100, reference, reference * 100):
        if math.isclose(item, prediction, rel_tol=0.01):
            return True
        digits = max(min(_precision(prediction), _precision(item)), 2)
        if round(prediction, digits) == round(item, digits):
            return True
    return False


def clean(s) -> str:
    s = str(s).lower().strip()
    s = re.sub(r"\s*\([^)]*\)", "", s).strip()  # parentheses
    s = re.sub(r"^['\"]|['\"]$", "", s).strip()  # quotes
    return s.lstrip("$").strip().rstrip("%").strip()


def exact_kind(s: str) -> bool:
    return ("https://" in s or s.endswith(".py") or s.endswith("ipynb") or s.startswith("page")
            or "a.m." in s or "p.m." in s
            or any(re.fullmatch(p, s) for p in (r"\b\d+(-\d+|\s\d+)?\b", r"\b\d{4}[-\s]\d{2}[-\s]\d{2}\b",
                                                r"\b\d{4}[-\s]\d{2}\b", r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}")))


def _as_list(x) -> list:
    if isinstance(x, str) and x.startswith("["):
        try:
            x = ast.literal_eval(x)
        except (ValueError, SyntaxError):
            pass
    return x if isinstance(x, list) else [x]


def _isfloat(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def score(reference, prediction, answer_format: str) -> float:
    """One question's score in [0, 1] by the answer type's rule."""
    if answer_format == "Int":
        try:
            return float(int(reference) == int(float(prediction)))
        except (ValueError, TypeError, OverflowError):
            return 0.0
    if answer_format == "Float":
        try:
            ref, pred = float(clean(reference)), float(clean(prediction))
        except ValueError:
            return 0.0
        return float(float_equal(ref, pred))
    if answer_format in ("Str", "None"):
        ref, pred = clean(reference), clean(prediction)
        return float(ref == pred) if exact_kind(ref) else anls(ref, pred)
    if answer_format != "List":
        raise ValueError(f"unknown answer format {answer_format!r}")
    ref, pred = _as_list(reference), _as_list(prediction)
    if len(ref) != len(pred):
        return 0.0
    ref, pred = sorted(clean(a) for a in ref), sorted(clean(a) for a in pred)
    if _isfloat(ref[0]) or exact_kind(ref[0]):
        return float("-".join(ref) == "-".join(pred))
    return min(anls(r, p) for r, p in zip(ref, pred))


def acc_and_f1(references: list[str], predictions: list[str], scores: list[float]) -> tuple[float, float]:
    if not scores:
        return 0.0, 0.0
    acc = sum(scores) / len(scores)
    answerable = [s for r, s in zip(references, scores) if r != NOT_ANSWERABLE]
    predicted = [p for p in predictions if p != NOT_ANSWERABLE]
    if not answerable or not predicted:
        return acc, 0.0
    recall, precision = sum(answerable) / len(answerable), sum(answerable) / len(predicted)
    return acc, (2 * recall * precision / (recall + precision) if recall + precision > 0 else 0.0)

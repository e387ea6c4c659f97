"""Claims: declare a claim with a criterion over measured values; its verdict is computed here, never typed.

A criterion is a small boolean expression over the names in `measured`, for example
``max_abs_z < 3 and naive_z_at_max_noise > 10``. Only comparisons, and/or/not, arithmetic, abs/min/max and
numbers are allowed.
"""

from __future__ import annotations

import ast
import json
import math
import operator
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from neurips26.common.artifacts import write_json
from neurips26.common.errors import UserError
from neurips26.common.registry import get_paper, repo_root

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
            ast.NotEq: operator.ne}
_FUNCTIONS = {"abs": abs, "min": min, "max": max}


def evaluate(criterion: str, measured: dict):
    """The truth value of `criterion` given `measured`; None when a value it needs is missing or NaN."""
    names = {n.id for n in ast.walk(ast.parse(criterion, mode="eval")) if isinstance(n, ast.Name)} - set(_FUNCTIONS)
    unknown = names - set(measured)
    if unknown:
        raise ValueError(f"criterion {criterion!r} names {sorted(unknown)}, which are not in measured")
    values = {k: measured[k] for k in names}
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values.values()):
        return None
    return bool(_eval(ast.parse(criterion, mode="eval").body, values))


def _eval(node, values):
    if isinstance(node, ast.BoolOp):
        results = [_eval(v, values) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, values)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, values), _eval(node.right, values))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, values)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, values)
            if type(op) not in _COMPARE or not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        return _FUNCTIONS[node.func.id](*[_eval(a, values) for a in node.args])
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
        return node.value
    raise ValueError(f"criterion element {ast.dump(node)} is not allowed")


@dataclass
class PositiveControl:
    """The claim's criterion on a setting where the claim must hold by construction: shows the test can pass."""

    setting: str
    measured: dict

    def to_json(self, criterion: str) -> dict:
        measured = {k: plain_number(v) for k, v in self.measured.items()}
        return {"setting": self.setting, "measured": measured, "holds": evaluate(criterion, measured)}


@dataclass
class Claim:
    id: str
    statement: str
    criterion: str
    measured: dict
    evidence: list[str] = field(default_factory=list)
    source: str = "abstract"
    why_untested: str | None = None
    positive_control: PositiveControl | None = None

    def to_json(self) -> dict:
        measured = {k: plain_number(v) for k, v in self.measured.items()}
        holds = None if self.why_untested else evaluate(self.criterion, measured)
        entry = {"id": self.id, "statement": self.statement, "source": self.source, "measured": measured,
                 "criterion": self.criterion, "holds": holds, "evidence": list(self.evidence)}
        if holds is None:
            entry["why_untested"] = self.why_untested or "a measured value the criterion needs is missing or NaN"
        if self.positive_control is not None:
            entry["positive_control"] = self.positive_control.to_json(self.criterion)
        return entry


def paired_effect(differences) -> tuple[float, float]:
    """Mean and standard error (sd ddof 1 / sqrt(n)) of per-seed paired differences (a pandas Series); NaN where
    undefined (the seeds of the two sides must match: a seed missing on one side is dropped by the subtraction's
    alignment). The claims' paired rule compares the mean with a bound and with a multiple of the SE."""
    d = differences.dropna()
    if len(d) == 0:
        return float("nan"), float("nan")
    se = float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    return float(d.mean()), se


def seed_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and two-sided t interval, mean -/+ t_{(1 + level) / 2, n - 1} * sd(ddof 1) / sqrt(n), of per-seed values
    (NaN dropped): (mean, lo, hi); lo and hi are NaN with fewer than two values (the interval is undefined)."""
    v = [float(x) for x in values if x is not None and not math.isnan(float(x))]
    if not v:
        return float("nan"), float("nan"), float("nan")
    mean = math.fsum(v) / len(v)
    if len(v) < 2:
        return mean, float("nan"), float("nan")
    from scipy.stats import t  # lazy: only the claims stages that use intervals pay scipy.stats' import

    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in v) / (len(v) - 1))
    half = float(t.ppf(0.5 + level / 2, len(v) - 1)) * sd / math.sqrt(len(v))
    return mean, mean - half, mean + half


def interval_verdict(criterion: str, measured: dict, low: str = "_lo", high: str = "_hi"):
    """Three-valued verdict of `criterion` over seed intervals. The criterion is written over the intervals' lower
    bounds (names ending in `low`; other names are constants) and must be non-decreasing in each of them. True: it
    holds at the lower bounds, so at every point of the intervals; False: it fails even with every lower bound replaced
    by its upper bound (the name ending in `high`), so at no point; None: the intervals straddle it, or a bound is
    missing or NaN (e.g. one seed)."""
    upper = dict(measured)
    for name in measured:
        if name.endswith(low):
            upper[name] = measured.get(name[: -len(low)] + high, float("nan"))
    at_low, at_high = evaluate(criterion, measured), evaluate(criterion, upper)
    if at_low is None or at_high is None:
        return None
    if at_low and not at_high:
        raise ValueError(f"criterion {criterion!r} holds at the lower bounds but not at the upper: it is not "
                         "non-decreasing in the bounded quantities")
    if at_low:
        return True
    return False if not at_high else None


def plain_json(value):
    """Metrics for JSON: nested dicts/lists kept, every number through plain_number (reproducible, NaN -> null)."""
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if isinstance(value, str):
        return value
    return plain_number(value)


def plain_number(value):
    """NumPy scalars to JSON numbers, rounded to 6 significant digits so reruns give identical files; NaN to null."""
    if isinstance(value, bool) or value is None:
        return value
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return None
    return float(f"{value:.6g}")


def claims_document(paper_id: str, cfg, claims: list[Claim]) -> dict:
    return {"paper_id": paper_id, "title": get_paper(paper_id).title, "scale": cfg.scale_name, "data": cfg.data,
            "seeds": [int(s) for s in cfg.seeds], "claims": [c.to_json() for c in claims]}


def write_claims(path: str | Path, paper_id: str, cfg, claims: list[Claim]) -> dict:
    """Validate against workflow/schemas/claims.schema.json, check evidence exists, then write atomically."""
    path = Path(path)
    document = claims_document(paper_id, cfg, claims)
    validate_claims(document, base=path.parent)
    write_json(path, document)
    return document


def validate_claims(document: dict, base: Path) -> None:
    schema = json.loads((repo_root() / "workflow" / "schemas" / "claims.schema.json").read_text())
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as exc:
        raise UserError(f"claims of {document.get('paper_id')} violate the schema: {exc.message}") from None
    missing = [e for c in document["claims"] for e in c["evidence"] if not (base / e).exists()]
    if missing:
        raise UserError(f"claims of {document['paper_id']} cite evidence that does not exist under {base}: {missing}")

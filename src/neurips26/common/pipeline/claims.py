"""Claims (contract v2): a claim is one or more tests over measured values; its verdict is computed here, never typed.

A test is either
- `SeedTest`: a mean over seeds (usually of paired per-seed differences) compared with a bound through a two-sided t
  interval with n - 1 degrees of freedom: `holds` when the interval lies on the claim's side of the bound, `fails` when
  it lies on the other side, `inconclusive` when it straddles the bound or fewer than 3 seeds exist; or
- `RuleTest`: a statistic that is not a mean over seeds (a fitted slope, a bound, a theorem check) with its own stated
  rule: a `holds_if` and a `fails_if` expression over measured values; neither true is `inconclusive`.

A claim holds when all its tests hold and fails when one fails. `decide` then applies the gates that can only make a
verdict `inconclusive`: a claim decided at a larger scale (or only on the real data) than this run's, a required control
that is missing or did not pass, or a claim the run states it cannot test. Expressions are small boolean formulas over
the names in `measured` (comparisons, and/or/not, arithmetic, abs/min/max, numbers).
"""

from __future__ import annotations

import ast
import json
import math
import operator
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from neurips26.common.pipeline.artifacts import write_json
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.registry import get_paper, registered_claims, repo_root

VERDICTS = ("holds", "fails", "inconclusive")
SCALES = ("tiny", "default", "long", "paper")  # in increasing size: a claim decided at one is undecided below it
MIN_SEEDS = 3

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
            ast.NotEq: operator.ne}
_FUNCTIONS = {"abs": abs, "min": min, "max": max}


def evaluate(expression: str, measured: dict):
    """The truth value of `expression` given `measured`; None when a value it needs is missing or NaN."""
    tree = ast.parse(expression, mode="eval")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(_FUNCTIONS)
    unknown = names - set(measured)
    if unknown:
        raise ValueError(f"expression {expression!r} names {sorted(unknown)}, which are not in measured")
    values = {k: measured[k] for k in names}
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values.values()):
        return None
    return bool(_eval(tree.body, values))


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
    raise ValueError(f"expression element {ast.dump(node)} is not allowed")


def seed_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and two-sided t interval, mean -/+ t_{(1 + level) / 2, n - 1} * sd(ddof 1) / sqrt(n), of per-seed values
    (None and NaN dropped): (mean, lo, hi); lo and hi are NaN with fewer than two values (the interval is undefined)."""
    v = [float(x) for x in values if x is not None and not math.isnan(float(x))]
    if not v:
        return float("nan"), float("nan"), float("nan")
    mean = math.fsum(v) / len(v)
    if len(v) < 2:
        return mean, float("nan"), float("nan")
    # the t quantile from scipy.special (what scipy.stats.t.ppf calls): scipy.stats' import costs ~2 s per claims job
    from scipy.special import stdtrit

    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in v) / (len(v) - 1))
    half = float(stdtrit(len(v) - 1, 0.5 + level / 2)) * sd / math.sqrt(len(v))
    return mean, mean - half, mean + half


def _finite(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def per_seed_values(values) -> dict[str, float | None]:
    """{seed: value} from a dict or a pandas Series indexed by seed; keys as strings (JSON), values plain numbers."""
    items = values.items() if hasattr(values, "items") else values
    return {str(int(k)): plain_number(v) for k, v in items}


def paired(a, b) -> dict[str, float | None]:
    """Per-seed paired differences a - b over the seeds both sides have (dicts or Series keyed by seed). A seed missing
    on one side is dropped; a seed with a NaN on either side gives None (and counts as missing in the interval)."""
    a, b = per_seed_values(a), per_seed_values(b)
    common = sorted(set(a) & set(b), key=int)
    return {s: (a[s] - b[s] if _finite(a[s]) and _finite(b[s]) else None) for s in common}


@dataclass
class SeedTest:
    """The mean of per-seed values against a bound: side '>' (the claim says the mean exceeds `bound`), '<', or
    'within' (bound = (low, high): the mean lies inside; fails only when the whole interval lies outside)."""

    name: str
    per_seed: dict
    side: str
    bound: float | tuple[float, float]
    level: float = 0.95

    def __post_init__(self):
        if self.side not in (">", "<", "within"):
            raise ValueError(f"SeedTest {self.name!r}: side must be '>', '<' or 'within', not {self.side!r}")
        if (self.side == "within") != isinstance(self.bound, (tuple, list)):
            raise ValueError(f"SeedTest {self.name!r}: 'within' takes (low, high), '>' and '<' a single bound")
        self.per_seed = per_seed_values(self.per_seed)

    @property
    def n(self) -> int:
        return sum(_finite(v) for v in self.per_seed.values())

    def has_data(self) -> bool:
        """Enough seeds for an interval (a control without it is missing, not passed or failed)."""
        return self.n >= MIN_SEEDS and not math.isnan(seed_interval(self.per_seed.values(), self.level)[1])

    def statistic(self) -> dict:
        mean, lo, hi = seed_interval(self.per_seed.values(), self.level)
        bound = [float(b) for b in self.bound] if self.side == "within" else float(self.bound)
        return {"name": self.name, "estimate": plain_number(mean), "ci_low": plain_number(lo),
                "ci_high": plain_number(hi), "level": self.level, "n": self.n, "side": self.side, "bound": bound,
                "rule": "t interval, n - 1 df"}

    def outcome(self) -> tuple[str, str | None]:
        """(outcome, why it is inconclusive or None)."""
        if self.n < MIN_SEEDS:
            return "inconclusive", f"{self.name}: {self.n} seed value(s), an interval needs at least {MIN_SEEDS}"
        _, lo, hi = seed_interval(self.per_seed.values(), self.level)
        if math.isnan(lo) or math.isnan(hi):
            return "inconclusive", f"{self.name}: the interval is undefined"
        if self.side == ">":
            result = "holds" if lo > self.bound else "fails" if hi < self.bound else "inconclusive"
        elif self.side == "<":
            result = "holds" if hi < self.bound else "fails" if lo > self.bound else "inconclusive"
        else:
            low, high = self.bound
            result = "holds" if low <= lo and hi <= high else "fails" if hi < low or lo > high else "inconclusive"
        why = None if result != "inconclusive" else (
            f"{self.name}: the {self.level:.0%} interval [{lo:.4g}, {hi:.4g}] straddles the bound {self.bound}")
        return result, why

    def to_json(self) -> dict:
        outcome, _ = self.outcome()
        return {"kind": "seed_interval", **self.statistic(), "outcome": outcome}


@dataclass
class RuleTest:
    """A statistic that is not a mean over seeds, with its own decision rule: `holds_if` and `fails_if` are
    expressions over `measured`; neither true (or a value missing) is inconclusive. `rule` says it in words."""

    name: str
    measured: dict
    holds_if: str
    fails_if: str
    rule: str = ""
    per_seed: dict | None = None  # {seed: value} shown beside the statistic, when the rule reads per-seed values

    def __post_init__(self):
        self.measured = {k: plain_number(v) for k, v in self.measured.items()}
        if self.per_seed is not None:
            self.per_seed = per_seed_values(self.per_seed)

    def has_data(self) -> bool:
        return evaluate(self.holds_if, self.measured) is not None and evaluate(self.fails_if, self.measured) is not None

    def outcome(self) -> tuple[str, str | None]:
        holds, fails = evaluate(self.holds_if, self.measured), evaluate(self.fails_if, self.measured)
        if holds and fails:
            raise ValueError(f"RuleTest {self.name!r}: holds_if and fails_if are both true on {self.measured}")
        if holds:
            return "holds", None
        if fails:
            return "fails", None
        missing = holds is None or fails is None
        return "inconclusive", f"{self.name}: " + ("a value the rule needs is missing" if missing
                                                   else f"neither {self.holds_if!r} nor {self.fails_if!r}")

    def statistic(self) -> dict:
        estimate = next(iter(self.measured.values()), None)
        return {"name": self.name, "estimate": estimate, "ci_low": None, "ci_high": None, "level": None,
                "n": len(self.per_seed) if self.per_seed else None, "rule": self.rule or
                f"holds if {self.holds_if}; fails if {self.fails_if}"}

    def to_json(self) -> dict:
        outcome, _ = self.outcome()
        return {"kind": "rule", **self.statistic(), "measured": self.measured, "holds_if": self.holds_if,
                "fails_if": self.fails_if, "outcome": outcome}


@dataclass
class Control:
    """A control of a claim's test. `positive`: the test on a case where the claim must hold (the test can pass);
    passes when that test holds. `negative`: the test where the structure the claim is about is destroyed (a random
    router, shuffled labels); passes when that test does not hold. A control whose test has no data is missing."""

    id: str
    kind: str
    setting: str
    test: SeedTest | RuleTest | None
    required: bool = True

    def __post_init__(self):
        if self.kind not in ("positive", "negative"):
            raise ValueError(f"control {self.id!r}: kind must be 'positive' or 'negative', not {self.kind!r}")

    def passed(self) -> bool | None:
        """True or False; None when it is missing (no test, or a test without the values it needs)."""
        if self.test is None or not self.test.has_data():
            return None
        outcome, _ = self.test.outcome()
        return outcome == "holds" if self.kind == "positive" else outcome != "holds"

    def to_json(self) -> dict:
        entry = {"id": self.id, "kind": self.kind, "setting": self.setting, "required": self.required,
                 "passed": self.passed()}
        if self.test is not None:
            entry["test"] = self.test.to_json()
        return entry


def decide(tests: list, controls: list[Control], scale: str, data: str, decided_at: str, decided_data: str | None,
           why_not_tested: str | None, design: str | None = None) -> tuple[str, str, str | None]:
    """The one verdict function: (verdict, outcome of the tests alone, why inconclusive or None). `design`: the scale
    whose budgets the run used when it differs from `scale` (a paper's long scale that still runs default's design);
    the scale gate reads it."""
    results = [t.outcome() for t in tests]
    outcomes = [r for r, _ in results]
    outcome = "fails" if "fails" in outcomes else "holds" if outcomes and all(o == "holds" for o in outcomes) \
        else "inconclusive"
    if why_not_tested:
        return "inconclusive", outcome, why_not_tested
    if SCALES.index(design or scale) < SCALES.index(decided_at):
        ran = f"scale={scale}" + (f" with {design}'s design" if design and design != scale else "")
        return "inconclusive", outcome, f"decided at scale={decided_at}" + (
            f" data={decided_data}" if decided_data else "") + f"; this run is {ran}"
    if decided_data and data != decided_data:
        return "inconclusive", outcome, f"decided on data={decided_data}; this run is data={data}"
    for control in controls:
        if control.required and control.passed() is not True:
            state = "is missing" if control.passed() is None else "did not pass"
            return "inconclusive", outcome, f"required {control.kind} control {control.id!r} {state}"
    if not tests:
        return "inconclusive", outcome, "the claim has no test"
    if outcome == "inconclusive":
        return "inconclusive", outcome, "; ".join(why for r, why in results if r == "inconclusive" and why)
    return outcome, outcome, None


@dataclass
class Claim:
    """One claim of the paper (kind 'claim') or a construction check (kind 'sanity': shown apart, never counted).

    `paper_value` is the paper's own number ({'value': number or text or None, 'where': 'Table 2, row ...'}).
    `decided_at` is the smallest scale whose budget decides the claim (`decided_data='real'` when it needs the real
    datasets or models); below it the verdict is inconclusive and says which scale decides it. `why_not_tested`
    states why this run cannot test the claim at all (the verdict is then inconclusive). `measured` holds extra values
    shown beside the statistics; `per_seed` extra per-seed values ({name: {seed: value}})."""

    id: str
    statement: str
    criterion: str
    tests: list
    evidence: list[str]
    paper_value: dict
    kind: str = "claim"
    source: str = "abstract"
    controls: list[Control] = field(default_factory=list)
    decided_at: str = "default"
    decided_data: str | None = None
    why_not_tested: str | None = None
    measured: dict = field(default_factory=dict)
    per_seed: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in ("claim", "sanity"):
            raise ValueError(f"claim {self.id!r}: kind must be 'claim' or 'sanity'")
        if self.decided_at not in SCALES[1:]:
            raise ValueError(f"claim {self.id!r}: decided_at must be one of {SCALES[1:]}")
        if set(self.paper_value) != {"value", "where"}:
            raise ValueError(f"claim {self.id!r}: paper_value is {{'value': ..., 'where': ...}}")

    def seed_table(self) -> dict:
        """{seed: {value name: value}} over every test with per-seed values and the extra per_seed."""
        table: dict[str, dict] = {}
        columns = [(t.name, t.per_seed) for t in self.tests if t.per_seed]
        columns += [(name, per_seed_values(values)) for name, values in self.per_seed.items()]
        for name, values in columns:
            for seed, value in values.items():
                table.setdefault(seed, {})[name] = value
        return dict(sorted(table.items(), key=lambda kv: int(kv[0])))

    def to_json(self, scale: str, data: str, design: str | None = None) -> dict:
        verdict, outcome, why = decide(self.tests, self.controls, scale, data, self.decided_at, self.decided_data,
                                       self.why_not_tested, design)
        measured = {k: plain_number(v) for k, v in self.measured.items()}
        for test in self.tests:
            measured[_slug(test.name)] = test.statistic()["estimate"]
        entry = {"id": self.id, "kind": self.kind, "source": self.source, "statement": self.statement,
                 "criterion": self.criterion,
                 "statistic": self.tests[0].statistic() if self.tests else None,
                 "tests": [t.to_json() for t in self.tests], "per_seed": self.seed_table(), "measured": measured,
                 "paper_value": {"value": plain_json(self.paper_value["value"]), "where": self.paper_value["where"]},
                 "controls": [c.to_json() for c in self.controls], "outcome": outcome, "verdict": verdict,
                 "holds": legacy_holds(verdict), "decided_at": self.decided_at, "decided_data": self.decided_data,
                 "evidence": list(self.evidence)}
        if why:
            entry["why_inconclusive"] = why
        return entry


def legacy_holds(verdict: str) -> bool | None:
    """The v1 field `holds`, derived from the computed verdict for old readers: None when inconclusive."""
    return None if verdict == "inconclusive" else verdict == "holds"


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name).strip("_").lower() or "value"


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


def claim_metrics(entries: list[dict]) -> dict:
    """A flat metrics dict for dvc metrics: every measured value and the verdict, prefixed by the claim id."""
    metrics = {f"{e['id']}.{k}": v for e in entries for k, v in e["measured"].items()}
    metrics.update({f"{e['id']}.verdict": e["verdict"] for e in entries})
    return metrics


def claims_document(paper_id: str, cfg, claims: list[Claim], provenance: dict) -> dict:
    scale, data = cfg.scale_name, cfg.data
    # A paper whose long design is not built yet runs default's design at scale=long (long_design: false in its
    # scale/long.yaml): it decides what default decides, and a claim decided at long stays inconclusive.
    design = "default" if scale == "long" and not cfg.get("long_design", True) else None
    entries = [c.to_json(scale, data, design) for c in claims]
    return {"paper_id": paper_id, "title": get_paper(paper_id).title, "contract": 2, "scale": scale, "data": data,
            "seeds": [int(s) for s in cfg.seeds], "provenance": provenance, "claims": entries}


def write_claims(path: str | Path, paper_id: str, cfg, claims: list[Claim], provenance: dict) -> dict:
    """Validate against the schema and the registry's list of claims, check evidence exists, then write atomically."""
    path = Path(path)
    document = claims_document(paper_id, cfg, claims, provenance)
    validate_claims(document, base=path.parent)
    check_registered(document)
    write_json(path, document)
    return document


def validate_claims(document: dict, base: Path) -> None:
    schema = json.loads((repo_root() / "workflow" / "schemas" / "claims.schema.json").read_text())
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        raise UserError(f"claims of {document.get('paper_id')} violate the schema at {where}: {exc.message}") from None
    missing = [e for c in document["claims"] for e in c["evidence"] if not (base / e).exists()]
    if missing:
        raise UserError(f"claims of {document['paper_id']} cite evidence that does not exist under {base}: {missing}")


def check_registered(document: dict) -> None:
    """Every claim registered for the paper (config/claims/<id>.yaml, with the abstract's sentence) has an entry of kind
    'claim' and every such entry is registered; the entries of kind 'sanity' are exactly the registered sanity ids."""
    registered = registered_claims(document["paper_id"])
    listed = {c["id"] for c in registered["claims"]}
    given = {c["id"] for c in document["claims"] if c["kind"] == "claim"}
    sanity = {c["id"] for c in document["claims"] if c["kind"] == "sanity"}
    problems = []
    if listed - given:
        problems.append(f"registered claims without an entry: {sorted(listed - given)}")
    if given - listed:
        problems.append(f"entries of kind 'claim' not registered: {sorted(given - listed)}")
    if sanity != set(registered["sanity"]):
        problems.append(f"sanity entries {sorted(sanity)} differ from the registered {sorted(registered['sanity'])}")
    if problems:
        raise UserError(f"claims of {document['paper_id']} do not match config/claims/{document['paper_id']}.yaml: "
                        + "; ".join(problems))

"""The compiler: extracted records -> validated estimands -> canonical kernels (log RR for binary outcomes, SMD for
continuous) -> conflict detection per cell (X, Y, population, horizon) -> quality scores -> default claims -> a
networkx DiGraph of canonical kernels."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from neurips26.papers.causal_compile import conversions as cv
from neurips26.papers.causal_compile.schema import Estimand, EvidenceError, Scale, parse_estimand


@dataclass
class Kernel:
    kernel_id: str
    study_id: str
    exposure: str
    outcome: str
    population: str
    horizon: float       # months
    value: float         # canonical: log RR (binary outcome) or SMD (continuous)
    se: float
    design: str
    method: str          # which conversion was used
    quality: float = 0.0

    @property
    def cell(self) -> tuple:
        return (self.exposure, self.outcome, self.population, round(self.horizon))


def _convert(scale: Scale, value: float, est: Estimand, kind: str, variables: dict, naive: bool) -> tuple[float, str]:
    """One number on the reported scale -> the canonical scale (before the contrast's direction)."""
    if kind == "binary":
        if scale == Scale.RR or naive:
            return math.log(value), "log" if scale == Scale.RR else "naive"
        p0 = est.baseline_risk
        if scale == Scale.OR:
            if p0 is not None:
                return math.log(cv.or_to_rr(value, p0)), "zhang_yu"
            common = variables[est.contrast.outcome].get("base_risk", 0) > cv.COMMON_OUTCOME
            return math.log(cv.or_to_rr_unknown_p0(value, common)), "vanderweele" if common else "rare_or"
        if scale == Scale.HR:
            if p0 is not None:
                return math.log(cv.hr_to_rr(value, p0)), "hr_to_rr"
            return math.log(value), "rare_hr"
        raise EvidenceError(f"study {est.study_id!r}: scale {scale.value} is not defined for binary outcome "
                            f"{est.contrast.outcome!r}")
    if scale == Scale.SMD:
        return value, "smd"
    if scale == Scale.MD:
        return value / est.outcome_sd, "md_over_sd"
    if scale == Scale.OR:
        return (math.log(value), "naive") if naive else (cv.log_or_to_smd(math.log(value)), "chinn")
    raise EvidenceError(f"study {est.study_id!r}: scale {scale.value} is not defined for continuous outcome "
                        f"{est.contrast.outcome!r}")


def canonicalise(est: Estimand, variables: dict, kernel_id: str, naive: bool = False) -> Kernel:
    """Standardise one estimand. naive=True: ratios taken as RR and log OR as SMD, no conversion (the baseline)."""
    for role in ("exposure", "outcome"):
        name = getattr(est.contrast, role)
        if name not in variables:
            raise EvidenceError(f"study {est.study_id!r}: unknown {role} {name!r}; known: {sorted(variables)}")
    kind = variables[est.contrast.outcome]["kind"]
    value, method = _convert(est.scale, est.estimate, est, kind, variables, naive)
    if est.ci_low is None:
        raise EvidenceError(f"study {est.study_id!r}: no confidence interval, so no standard error")
    ends = sorted(_convert(est.scale, b, est, kind, variables, naive)[0] for b in (est.ci_low, est.ci_high))
    se = (ends[1] - ends[0]) / (2 * cv.z_of(est.ci_level))
    d = est.contrast.delta_sd
    return Kernel(kernel_id, est.study_id, est.contrast.exposure, est.contrast.outcome, est.population.group,
                  est.horizon.months, value / d, se / abs(d), est.design.value, method)


def compile_records(records: list[dict], variables: dict, naive: bool = False):
    """Records -> (kernels, rejections). A rejection keeps the record id and the schema's message."""
    kernels, rejected = [], []
    for i, record in enumerate(records):
        kid = record.get("kernel_id", f"{record.get('study_id', '?')}-r{i}")
        raw = {k: v for k, v in record.items() if k != "kernel_id"}
        try:
            kernels.append(canonicalise(parse_estimand(raw), variables, kid, naive))
        except EvidenceError as exc:
            rejected.append({"kernel_id": kid, "reason": str(exc)})
    return kernels, rejected


def score_quality(kernels: list[Kernel], cfg) -> None:
    """Quality = design weight x 1/SE x population match."""
    for k in kernels:
        k.quality = (cfg.compiler.design_weight[k.design] / k.se) * cfg.compiler.population_match.get(k.population, 0.5)


@dataclass
class Conflicts:
    pairs: set = field(default_factory=set)      # {(kernel_id_a, kernel_id_b)} sorted
    reasons: dict = field(default_factory=dict)  # pair -> rule


def _i2(values: np.ndarray, ses: np.ndarray) -> float:
    w = 1 / ses**2
    mean = (w * values).sum() / w.sum()
    q = (w * (values - mean) ** 2).sum()
    return 0.0 if q <= 0 else max(0.0, (q - (len(values) - 1)) / q)


def edge_of(k: Kernel) -> tuple:
    """The cell of a detector without the cell rule (a negative control): every kernel of an edge X -> Y together."""
    return (k.exposure, k.outcome)


def detect_conflicts(kernels: list[Kernel], level: float = 0.95, i2_threshold: float = 0.75,
                     cell_of=lambda k: k.cell) -> Conflicts:
    """Within a cell (same X, Y, population and horizon): a pair conflicts when both are significant with opposite
    signs or their CIs do not overlap; a cell with I^2 > threshold adds the pairs of its most outlying kernel (largest
    leave-one-out |z|)."""
    z = cv.z_of(level)
    out = Conflicts()
    cells: dict[tuple, list[Kernel]] = {}
    for k in kernels:
        cells.setdefault(cell_of(k), []).append(k)
    for members in cells.values():
        for a, b in itertools.combinations(members, 2):
            pair = tuple(sorted((a.kernel_id, b.kernel_id)))
            sig = abs(a.value) > z * a.se and abs(b.value) > z * b.se and np.sign(a.value) != np.sign(b.value)
            apart = a.value - z * a.se > b.value + z * b.se or b.value - z * b.se > a.value + z * a.se
            if sig or apart:
                out.pairs.add(pair)
                out.reasons[pair] = "opposite_significant" if sig else "ci_disjoint"
        if len(members) >= 3:
            values, ses = np.array([m.value for m in members]), np.array([m.se for m in members])
            if _i2(values, ses) > i2_threshold:
                loo = []
                for i in range(len(members)):
                    rest = np.delete(np.arange(len(members)), i)
                    w = 1 / ses[rest] ** 2
                    mean, var = (w * values[rest]).sum() / w.sum(), 1 / w.sum()
                    loo.append(abs(values[i] - mean) / math.sqrt(ses[i] ** 2 + var))
                worst = members[int(np.argmax(loo))]
                for m in members:
                    if m is not worst:
                        pair = tuple(sorted((worst.kernel_id, m.kernel_id)))
                        if pair not in out.pairs:
                            out.pairs.add(pair)
                            out.reasons[pair] = "i2"
    return out


def default_claims(kernels: list[Kernel], conflicts: Conflicts) -> dict[tuple, dict]:
    """Per cell: the consistent subset of largest total quality (no conflicting pair inside), pooled by inverse
    variance. Returns cell -> {value, se, kept, excluded}."""
    cells: dict[tuple, list[Kernel]] = {}
    for k in kernels:
        cells.setdefault(k.cell, []).append(k)
    claims = {}
    for cell, members in cells.items():
        ids = [m.kernel_id for m in members]
        best, best_weight = members, -1.0
        if any(tuple(sorted(p)) in conflicts.pairs for p in itertools.combinations(ids, 2)):
            order = sorted(members, key=lambda m: -m.quality)[:12]
            best = []
            for r in range(len(order), 0, -1):
                for subset in itertools.combinations(order, r):
                    sub_ids = [m.kernel_id for m in subset]
                    if any(tuple(sorted(p)) in conflicts.pairs for p in itertools.combinations(sub_ids, 2)):
                        continue
                    weight = sum(m.quality for m in subset)
                    if weight > best_weight:
                        best, best_weight = list(subset), weight
        w = np.array([1 / m.se**2 for m in best])
        value = float((w * np.array([m.value for m in best])).sum() / w.sum())
        claims[cell] = {"value": value, "se": float(1 / math.sqrt(w.sum())), "kept": [m.kernel_id for m in best],
                        "excluded": [i for i in ids if i not in {m.kernel_id for m in best}]}
    return claims


def build_graph(claims: dict[tuple, dict], variables: dict) -> nx.DiGraph:
    """The compiled graph: an edge X -> Y carries its default claims keyed by (population, horizon)."""
    graph = nx.DiGraph()
    for v, spec in variables.items():
        graph.add_node(v, kind=spec["kind"])
    for (x, y, population, horizon), claim in claims.items():
        if not graph.has_edge(x, y):
            graph.add_edge(x, y, claims={})
        graph[x][y]["claims"][(population, horizon)] = claim
    return graph


def pooled_graph(kernels: list[Kernel], variables: dict) -> nx.DiGraph:
    """Baseline: one inverse-variance pool per (X, Y) over every kernel, whatever its population, horizon or
    conflicts (a meta-analysis without conflict checks); the pool answers every horizon and population."""
    graph = nx.DiGraph()
    for v, spec in variables.items():
        graph.add_node(v, kind=spec["kind"])
    groups: dict[tuple, list[Kernel]] = {}
    for k in kernels:
        groups.setdefault((k.exposure, k.outcome), []).append(k)
    for (x, y), members in groups.items():
        w = np.array([1 / m.se**2 for m in members])
        value = float((w * np.array([m.value for m in members])).sum() / w.sum())
        graph.add_edge(x, y, pooled={"value": value, "se": float(1 / math.sqrt(w.sum()))})
    return graph

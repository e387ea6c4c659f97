"""The six executable queries on the linear canonical graph. Each returns a QueryResult; a query that lacks the
kernels it needs is "not executable" and names the missing kernels (edge, population, horizon).

The query engine knows the hypothesised causal structure (the DAG of the domain, `structure`); the compiled graph
supplies the numbers. A kernel at horizon h is used as is, or linearly interpolated between the nearest reported
horizons below and above h (never extrapolated)."""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx


@dataclass
class QueryResult:
    executable: bool
    answer: object = None
    missing: list = field(default_factory=list)


class EdgeEffects:
    """Edge effect lookup on a compiled graph (default claims per population and horizon)."""

    def __init__(self, graph: nx.DiGraph, pooled: bool = False):
        self.graph, self.pooled = graph, pooled

    def effect(self, x: str, y: str, horizon: float, population: str = "adults") -> float | None:
        if not self.graph.has_edge(x, y):
            return None
        data = self.graph[x][y]
        if self.pooled:
            return data["pooled"]["value"]
        points = sorted((h, c["value"]) for (pop, h), c in data["claims"].items() if pop == population)
        for h, value in points:
            if abs(h - horizon) < 0.5:
                return value
        below = [p for p in points if p[0] < horizon]
        above = [p for p in points if p[0] > horizon]
        if not below or not above:
            return None
        (h0, v0), (h1, v1) = below[-1], above[0]
        return v0 + (v1 - v0) * (horizon - h0) / (h1 - h0)


class TrueEffects:
    """The SCM's own edge effects: queries on it must equal the do-calculus ground truth (tests)."""

    def __init__(self, scm):
        self.scm = scm

    def effect(self, x, y, horizon, population="adults"):
        return self.scm.edges[(x, y)].at(horizon, population) if (x, y) in self.scm.edges else None


def _paths(structure: nx.DiGraph, x: str, y: str, avoid: str | None = None) -> list[list[str]]:
    return [p for p in nx.all_simple_paths(structure, x, y) if avoid is None or avoid not in p]


def _path_sum(effects, paths, horizon, missing: list) -> float:
    total = 0.0
    for path in paths:
        product = 1.0
        for a, b in zip(path, path[1:]):
            e = effects.effect(a, b, horizon)
            if e is None:
                tag = f"{a}->{b}@{horizon:g}mo"
                if tag not in missing:
                    missing.append(tag)
                product = float("nan")
            else:
                product *= e
        total += product
    return total


def do_query(structure, effects, x, y, horizon=12.0) -> QueryResult:
    """E[Y | do(X = x + 1 SD)] - E[Y | do(X = x)] (SMD or log RR): sum over directed paths of edge products."""
    paths = _paths(structure, x, y)
    if not paths:
        return QueryResult(True, 0.0)
    missing = []
    total = _path_sum(effects, paths, horizon, missing)
    return QueryResult(not missing, None if missing else total, missing)


def counterfactual_query(structure, effects, x, y, unit: dict, x_new: float, horizon=12.0) -> QueryResult:
    """Abduction (each node's noise from the unit's observed values), action (X := x_new), prediction (Y)."""
    nodes = (nx.descendants(structure, x) & nx.ancestors(structure, y)) | {y}
    order = [v for v in nx.topological_sort(structure) if v in nodes]
    coef, missing = {}, []
    for v in order:
        for p in structure.predecessors(v):
            e = effects.effect(p, v, horizon)
            if e is None:
                missing.append(f"{p}->{v}@{horizon:g}mo")
            coef[(p, v)] = e
    if missing:
        return QueryResult(False, None, missing)
    noise = {v: unit[v] - sum(coef[(p, v)] * unit[p] for p in structure.predecessors(v)) for v in order}
    world = dict(unit)
    world[x] = x_new
    for v in order:
        world[v] = noise[v] + sum(coef[(p, v)] * world[p] for p in structure.predecessors(v))
    return QueryResult(True, world[y])


def temporal_query(structure, effects, x, y, horizons) -> QueryResult:
    """The do-effect trajectory over horizons."""
    results = [do_query(structure, effects, x, y, h) for h in horizons]
    missing = [m for r in results for m in r.missing]
    return QueryResult(not missing, None if missing else [r.answer for r in results], missing)


def heterogeneous_query(structure, effects, x, y, horizon=12.0, groups=("older adults", "younger adults")):
    """Effect modification of the edge X -> Y: effect in the first group minus the second (subgroup kernels)."""
    values, missing = [], []
    for g in groups:
        e = effects.effect(x, y, horizon, g)
        if e is None:
            missing.append(f"{x}->{y}[{g}]@{horizon:g}mo")
        values.append(e)
    return QueryResult(not missing, None if missing else values[0] - values[1], missing)


def mechanistic_query(structure, effects, x, y, horizon=12.0) -> QueryResult:
    """Direct (edge X -> Y) and mediated (all other directed paths) parts of the effect."""
    direct_paths = [p for p in _paths(structure, x, y) if len(p) == 2]
    mediated_paths = [p for p in _paths(structure, x, y) if len(p) > 2]
    missing = []
    direct = _path_sum(effects, direct_paths, horizon, missing)
    mediated = _path_sum(effects, mediated_paths, horizon, missing)
    return QueryResult(not missing, None if missing else (direct, mediated), missing)


def joint_query(structure, effects, x1, x2, y, horizon=12.0) -> QueryResult:
    """do(X1 + 1 SD, X2 + 1 SD) vs do(X1, X2): each intervention's paths that avoid the other intervened variable
    (summed log effects; no interaction kernel is compiled, so the interaction term is 0)."""
    missing = []
    total = _path_sum(effects, _paths(structure, x1, y, avoid=x2), horizon, missing)
    total += _path_sum(effects, _paths(structure, x2, y, avoid=x1), horizon, missing)
    return QueryResult(not missing, None if missing else total, missing)

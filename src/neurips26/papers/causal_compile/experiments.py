"""One seed: generate the corpus, extract, compile (and the baselines), detect conflicts, run the six queries on the
compiled graph, and validate do-queries on a simulated cohort. Returns three frames: kernels, queries, conflicts."""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd

from neurips26.papers.causal_compile import baselines, cohort, corpus, heldout, method
from neurips26.papers.causal_compile import conversions as cv
from neurips26.papers.causal_compile import queries as Q
from neurips26.papers.causal_compile.degenerate import DEGENERATE
from neurips26.papers.causal_compile.extractor import Vocabulary, extract_abstract
from neurips26.papers.causal_compile.scm import SCM

QUERY_TYPES = ("do", "counterfactual", "temporal", "heterogeneous", "mechanistic", "joint")


def extract_all(abstracts, vocab) -> list[dict]:
    records = []
    for a in abstracts:
        for i, r in enumerate(extract_abstract(a["study_id"], a["text"], vocab)):
            records.append({"kernel_id": f"{a['study_id']}-k{i}", **r})
    return records


def correct(value, truth, cfg) -> bool:
    e = cfg.evaluation
    return abs(value - truth) <= e.canonical_tolerance_abs + e.canonical_tolerance_rel * abs(truth)


COMPILERS = ("compiled", "naive", "flipped", "constant")  # the compiler and its degenerate versions
DETECTORS = (*COMPILERS, "nocell")  # nocell: the compiled values, conflicts looked for per edge, not per cell


@dataclass
class Compiled:
    kernels: list
    conflicts: method.Conflicts
    claims: dict


def compile_all(records, variables, cfg) -> tuple[dict[str, Compiled], list, method.Conflicts]:
    """The compiler, the naive conversion and the degenerate compilers, each with its own conflicts and default
    claims; and the conflicts a detector without the cell rule finds on the compiled values."""
    compiled, rejected = method.compile_records(records, variables)
    naive, _ = baselines.naive_kernels(records, variables)
    sets = {"compiled": compiled, "naive": naive, **{n: f(compiled) for n, f in DEGENERATE.items()}}
    out = {}
    for name, kernels in sets.items():
        method.score_quality(kernels, cfg)
        conflicts = method.detect_conflicts(kernels, cfg.compiler.ci_level, cfg.compiler.i2_threshold)
        out[name] = Compiled(kernels, conflicts, method.default_claims(kernels, conflicts))
    nocell = method.detect_conflicts(compiled, cfg.compiler.ci_level, cfg.compiler.i2_threshold, method.edge_of)
    return out, rejected, nocell


def kernel_table(truth: list[dict], compiled, rejected, naive, conflicts: method.Conflicts, cfg, claims=None,
                 pooled=None, others: dict | None = None) -> pd.DataFrame:
    """One row per generated kernel: its ground truth, the compiled value (and the naive one), whether it was
    extracted into its cell, and (others: {name: (kernels, conflicts)}) the values and conflict flags of the
    degenerate compilers and detectors."""
    by_id = {k.kernel_id: k for k in compiled}
    claims, pooled = claims or {}, pooled if pooled is not None else nx.DiGraph()
    cells: dict[tuple, list] = {}
    for k in compiled:
        cells.setdefault(k.cell, []).append(k)
    cell_all = {c: float(sum(m.value / m.se**2 for m in ms) / sum(1 / m.se**2 for m in ms)) for c, ms in cells.items()}
    naive_by_id = {k.kernel_id: k for k in naive}
    reasons = {r["kernel_id"]: r["reason"] for r in rejected}
    flagged = {i for pair in conflicts.pairs for i in pair}
    injected = {t["kernel_id"] for t in truth if t["injected_conflict"]}

    def false_flags(found):  # kernels in a flagged pair that holds no injected conflict
        return {i for pair in found.pairs if not set(pair) & injected for i in pair}

    other = {name: ({k.kernel_id: k.value for k in ks} if ks is not None else {},
                    {i for pair in found.pairs for i in pair}, false_flags(found))
             for name, (ks, found) in (others or {}).items()}
    wrong = false_flags(conflicts)
    rows = []
    for t in truth:
        k, n = by_id.get(t["kernel_id"]), naive_by_id.get(t["kernel_id"])
        matched = k is not None and (k.exposure, k.outcome, k.population) == (t["exposure"], t["outcome"],
                                                                             t["population"]) \
            and abs(k.horizon - t["horizon"]) < 0.5
        row = {
            "kernel_id": t["kernel_id"], "study_id": t["study_id"], "exposure": t["exposure"], "outcome": t["outcome"],
            "outcome_kind": t["outcome_kind"], "scale": t["scale"], "population": t["population"],
            "horizon": t["horizon"], "design": t["design"], "baseline_risk": t["baseline_risk"],
            "p0_reported": t["p0_reported"], "reversed": t["reversed"], "malformed": t["malformed"],
            "injected_conflict": t["injected_conflict"], "stratum": t.get("stratum", ""), "theta": t["theta"],
            "se_true": t["se"], "rejected": t["kernel_id"] in reasons, "reject_reason": reasons.get(t["kernel_id"], ""),
            "extracted": matched, "value": k.value if k else np.nan, "se": k.se if k else np.nan,
            "method": k.method if k else "", "naive_value": n.value if n else np.nan,
            "correct": bool(matched and correct(k.value, t["theta"], cfg)),
            "naive_correct": bool(n is not None and matched and correct(n.value, t["theta"], cfg)),
            "flagged": t["kernel_id"] in flagged, "flagged_false": t["kernel_id"] in wrong,
            "truth_edge_effect": t["truth_edge_effect"],
            "cell_default": claims[k.cell]["value"] if k is not None and k.cell in claims else np.nan,
            "cell_pooled_all": cell_all.get(k.cell, np.nan) if k is not None else np.nan,
            "kept_in_default": bool(k is not None and k.cell in claims and k.kernel_id in claims[k.cell]["kept"]),
            "edge_pooled": pooled[t["exposure"]][t["outcome"]]["pooled"]["value"]
            if pooled.has_edge(t["exposure"], t["outcome"]) else np.nan,
        }
        for name, (values, flags, false) in other.items():
            if values:
                v = values.get(t["kernel_id"], np.nan)
                row[f"{name}_value"] = v
                row[f"{name}_correct"] = bool(matched and np.isfinite(v) and correct(v, t["theta"], cfg))
            row[f"flagged_{name}"] = t["kernel_id"] in flags
            row[f"flagged_false_{name}"] = t["kernel_id"] in false
        rows.append(row)
    return pd.DataFrame(rows)


def conflict_table(compiled, truth, cfg, detectors: dict | None = None) -> pd.DataFrame:
    """Compiled: flagged pairs at every CI level of the sweep; detectors ({name: Conflicts} at the default level): the
    same counts. A flagged pair is true when it holds an injected conflict."""
    injected = {t["kernel_id"] for t in truth if t["injected_conflict"]}
    found = [("compiled", level, method.detect_conflicts(compiled, level, cfg.compiler.i2_threshold))
             for level in cfg.compiler.pr_levels]
    found += [(name, cfg.compiler.ci_level, c) for name, c in (detectors or {}).items()]
    rows = []
    for name, level, f in found:
        hit = {i for pair in f.pairs for i in pair} & injected
        true_pairs = [p for p in f.pairs if set(p) & injected]
        rows.append({"detector": name, "level": level, "default": math.isclose(level, cfg.compiler.ci_level),
                     "injected": len(injected), "detected_pairs": len(f.pairs), "true_pairs": len(true_pairs),
                     "recall": len(hit) / len(injected) if injected else np.nan,
                     "precision": len(true_pairs) / len(f.pairs) if f.pairs else np.nan})
    return pd.DataFrame(rows)


def oracle_graph(truth: list[dict], variables: dict) -> nx.DiGraph:
    """The cells the corpus truly holds (every well-formed kernel's cell) with the SCM's true edge effects: a query
    is truly executable when it runs on this graph (the ground truth of the execute decision)."""
    claims = {(t["exposure"], t["outcome"], t["population"], round(t["horizon"])): {"value": t["truth_edge_effect"]}
              for t in truth if not t["malformed"]}
    return method.build_graph(claims, variables)


def sample_queries(scm: SCM, cfg, rng) -> list[dict]:
    dag, n = scm.dag, int(cfg.queries.per_type)
    pairs = [(x, y) for x in scm.continuous for y in scm.order if x != y and nx.has_path(dag, x, y)]
    cands = {
        "do": [{"x": x, "y": y} for x, y in pairs],
        "counterfactual": [{"x": x, "y": y} for x, y in pairs if scm.kind(y) == "continuous"],
        "temporal": [{"x": x, "y": y} for x, y in pairs],
        "heterogeneous": [{"x": x, "y": y} for x, y in sorted(scm.edges)],
        "mechanistic": [{"x": x, "y": y} for x, y in pairs
                        if dag.has_edge(x, y) and any(len(p) > 2 for p in nx.all_simple_paths(dag, x, y))],
        "joint": [{"x": a, "x2": b, "y": y} for a, y in pairs for b, y2 in pairs if y2 == y and a < b],
    }
    out = []
    for qtype in QUERY_TYPES:
        pool = cands[qtype]
        chosen = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
        for i in sorted(chosen):
            out.append({"type": qtype, **pool[i]})
    return out


def truth_of(scm: SCM, q: dict, cfg, unit: dict):
    h = float(cfg.queries.horizon)
    x, y = q["x"], q["y"]
    if q["type"] == "do":
        return scm.interventional_effect(y, {x: 1.0}, {x: 0.0}, h)
    if q["type"] == "counterfactual":
        return scm.counterfactual(unit, x, unit[x] + 1.0, h)[y]
    if q["type"] == "temporal":
        return [scm.interventional_effect(y, {x: 1.0}, {x: 0.0}, t) for t in cfg.queries.trajectory]
    if q["type"] == "heterogeneous":
        e = scm.edges[(x, y)]
        return e.at(h, "older adults") - e.at(h, "younger adults")
    if q["type"] == "mechanistic":
        r = Q.mechanistic_query(scm.dag, Q.TrueEffects(scm), x, y, h)
        return r.answer
    return scm.interventional_effect(y, {x: 1.0, q["x2"]: 1.0}, {x: 0.0, q["x2"]: 0.0}, h)


def execute(q: dict, structure, effects, cfg, unit: dict) -> Q.QueryResult:
    h = float(cfg.queries.horizon)
    x, y = q["x"], q["y"]
    if q["type"] == "do":
        return Q.do_query(structure, effects, x, y, h)
    if q["type"] == "counterfactual":
        return Q.counterfactual_query(structure, effects, x, y, unit, unit[x] + 1.0, h)
    if q["type"] == "temporal":
        return Q.temporal_query(structure, effects, x, y, list(cfg.queries.trajectory))
    if q["type"] == "heterogeneous":
        return Q.heterogeneous_query(structure, effects, x, y, h)
    if q["type"] == "mechanistic":
        return Q.mechanistic_query(structure, effects, x, y, h)
    return Q.joint_query(structure, effects, x, q["x2"], y, h)


def _flat(value) -> list[float]:
    return [float(v) for v in (value if isinstance(value, (list, tuple)) else [value])]


class CohortEstimates:
    """Backdoor-adjusted estimates with SEs on simulated cohorts (the HPP stand-in), one cohort per horizon: do-effects
    (Y on X and X's parents), trajectories (the same at each horizon) and effect modification of an edge (Y on X and
    Y's other parents within each age group, older minus younger)."""

    def __init__(self, scm: SCM, cfg, data12: dict, rng):
        self.scm, self.h = scm, float(cfg.queries.horizon)
        self.data = {self.h: data12}
        for t in cfg.queries.trajectory:
            if float(t) not in self.data:
                self.data[float(t)] = scm.simulate(len(data12["older"]), rng, float(t))
        self.trajectory = [float(t) for t in cfg.queries.trajectory]

    def _do(self, x, y, h):
        return cohort.adjusted_effect_se(self.data[h], x, y, sorted(self.scm.dag.predecessors(x)),
                                         self.scm.kind(y) == "binary")

    def of(self, q: dict) -> tuple[list[float], list[float]] | None:
        x, y = q["x"], q["y"]
        if q["type"] == "do":
            est, se = self._do(x, y, self.h)
            return [est], [se]
        if q["type"] == "temporal":
            pairs = [self._do(x, y, t) for t in self.trajectory]
            return [p[0] for p in pairs], [p[1] for p in pairs]
        if q["type"] == "heterogeneous":
            data, adjust = self.data[self.h], sorted(p for p in self.scm.dag.predecessors(y) if p != x)
            older, younger = (cohort.adjusted_effect_se(data, x, y, adjust, self.scm.kind(y) == "binary",
                                                        data["older"] == g) for g in (1.0, 0.0))
            return [older[0] - younger[0]], [math.hypot(older[1], younger[1])]
        return None


def within(answer, reference, cfg, slack=None) -> bool:
    """Every component of the answer within the query tolerance of the reference (plus `slack`: 1.96 x the cohort
    estimate's SE when the reference is a cohort estimate)."""
    e = cfg.evaluation
    slack = slack if slack is not None else [0.0] * len(reference)
    return bool(all(abs(a - r) <= e.query_tolerance_abs + e.query_tolerance_rel * abs(r) + s
                    for a, r, s in zip(answer, reference, slack)))


def query_table(scm, structure, graphs: dict, abstracts, vocab, cfg, rng, data, cohorts=None) -> pd.DataFrame:
    """graphs: {method: effects}; the one named 'oracle' (the cells the corpus truly holds, true effects) decides
    whether each query is truly executable."""
    index = baselines.SentenceIndex(abstracts, vocab)
    z = cv.z_of(0.95)
    rows = []
    for qi, q in enumerate(sample_queries(scm, cfg, rng)):
        unit = {v: float(data[v][qi]) for v in scm.continuous}
        truth = _flat(truth_of(scm, q, cfg, unit))
        ref = cohorts.of(q) if cohorts is not None else None
        cohort_value = ref[0][len(ref[0]) // 2] if ref else np.nan  # the component answer_main reports
        target = "->".join([q["x"]] + ([q["x2"]] if "x2" in q else []) + [q["y"]])
        oracle = execute(q, structure, graphs["oracle"], cfg, unit) if "oracle" in graphs else None
        base = {"query": qi, "type": q["type"], "target": target, "outcome_kind": scm.kind(q["y"]),
                "truth": ";".join(f"{t:.6g}" for t in truth),
                "truth_main": sum(truth) if q["type"] == "mechanistic" else truth[len(truth) // 2 if q["type"] ==
                                                                                  "temporal" else 0],
                "cohort": cohort_value, "cohort_all": ";".join(f"{c:.6g}" for c in ref[0]) if ref else "",
                "cohort_se": ";".join(f"{c:.6g}" for c in ref[1]) if ref else "",
                "truth_executable": oracle.executable if oracle is not None else np.nan}
        for name, effects in graphs.items():
            if name == "oracle":
                continue
            r = execute(q, structure, effects, cfg, unit)
            answer = _flat(r.answer) if r.executable else None
            main = np.nan
            if answer is not None:
                main = sum(answer) if q["type"] == "mechanistic" else answer[len(answer) // 2 if q["type"] ==
                                                                             "temporal" else 0]
            rows.append({**base, "method": name, "executable": r.executable, "missing": ";".join(r.missing),
                         "answer": ";".join(f"{a:.6g}" for a in answer) if answer else "", "answer_main": main,
                         "abs_error": float(np.mean(np.abs(np.array(answer) - np.array(truth)))) if answer else np.nan,
                         "within_tolerance": bool(answer is not None and within(answer, truth, cfg)),
                         "cohort_agree": bool(answer is not None and ref is not None
                                              and within(answer, ref[0], cfg, [z * s for s in ref[1]])),
                         "cohort_error": float(np.mean(np.abs(np.array(answer) - np.array(ref[0]))))
                         if answer is not None and ref is not None else np.nan})
        names = [q["x"]] + ([q["x2"]] if "x2" in q else []) + [q["y"]]
        hits = index.retrieve(names)
        rows.append({**base, "method": "retrieval", "executable": False,
                     "missing": f"no estimand compiled ({len(hits)} sentences retrieved)", "answer": "",
                     "answer_main": np.nan, "abs_error": np.nan, "within_tolerance": False, "cohort_agree": False,
                     "cohort_error": np.nan, "retrieved": len(hits)})
    return pd.DataFrame(rows)


def run(cfg, seed: int) -> dict[str, pd.DataFrame]:
    scm = SCM.from_config(cfg)
    abstracts, truth = corpus.generate(cfg, seed)
    vocab = Vocabulary(scm.variables)
    records = extract_all(abstracts, vocab)
    sets, rejected, nocell = compile_all(records, scm.variables, cfg)
    comp = sets["compiled"]
    pooled = method.pooled_graph(comp.kernels, scm.variables)
    graphs = {name: Q.EdgeEffects(method.build_graph(c.claims, scm.variables)) for name, c in sets.items()}
    graphs.update(pooled=Q.EdgeEffects(pooled, pooled=True),
                  oracle=Q.EdgeEffects(oracle_graph(truth, scm.variables)))
    rng = np.random.default_rng([seed, 18, 1])
    data = scm.simulate(int(cfg.cohort.n), rng)
    cohorts = CohortEstimates(scm, cfg, data, np.random.default_rng([seed, 18, 2]))
    others = {name: (c.kernels, c.conflicts) for name, c in sets.items() if name not in ("compiled", "naive")}
    others.update(naive=(None, sets["naive"].conflicts), nocell=(None, nocell))
    kernels = kernel_table(truth, comp.kernels, rejected, sets["naive"].kernels, comp.conflicts, cfg, comp.claims,
                           pooled, others)
    constant = sets["constant"].kernels[0].value if sets["constant"].kernels else 0.0
    held = pd.DataFrame(heldout.score(truth, scm.variables, cfg, seed, correct, constant))
    if len(held):
        kernels = kernels.merge(held, on="kernel_id", how="left")
    qtable = query_table(scm, scm.dag, graphs, abstracts, vocab, cfg, rng, data, cohorts)
    detectors = {name: c.conflicts for name, c in sets.items() if name != "compiled"} | {"nocell": nocell}
    ctable = conflict_table(comp.kernels, truth, cfg, detectors)
    for frame in (kernels, qtable, ctable):
        frame.insert(0, "seed", seed)
    return {"kernels": kernels, "queries": qtable, "conflicts": ctable}

"""One seed: generate the corpus, extract, compile (and the baselines), detect conflicts, run the six queries on the
compiled graph, and validate do-queries on a simulated cohort. Returns three frames: kernels, queries, conflicts."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd

from neurips26.papers.causal_compile import baselines, cohort, corpus, method
from neurips26.papers.causal_compile import queries as Q
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


def kernel_table(truth: list[dict], compiled, rejected, naive, conflicts: method.Conflicts, cfg, claims=None,
                 pooled=None) -> pd.DataFrame:
    by_id = {k.kernel_id: k for k in compiled}
    claims, pooled = claims or {}, pooled if pooled is not None else nx.DiGraph()
    cells: dict[tuple, list] = {}
    for k in compiled:
        cells.setdefault(k.cell, []).append(k)
    cell_all = {c: float(sum(m.value / m.se**2 for m in ms) / sum(1 / m.se**2 for m in ms)) for c, ms in cells.items()}
    naive_by_id = {k.kernel_id: k for k in naive}
    reasons = {r["kernel_id"]: r["reason"] for r in rejected}
    flagged = {i for pair in conflicts.pairs for i in pair}
    rows = []
    for t in truth:
        k, n = by_id.get(t["kernel_id"]), naive_by_id.get(t["kernel_id"])
        matched = k is not None and (k.exposure, k.outcome, k.population) == (t["exposure"], t["outcome"],
                                                                             t["population"]) \
            and abs(k.horizon - t["horizon"]) < 0.5
        rows.append({
            "kernel_id": t["kernel_id"], "study_id": t["study_id"], "exposure": t["exposure"], "outcome": t["outcome"],
            "outcome_kind": t["outcome_kind"], "scale": t["scale"], "population": t["population"],
            "horizon": t["horizon"], "design": t["design"], "baseline_risk": t["baseline_risk"],
            "p0_reported": t["p0_reported"], "reversed": t["reversed"], "malformed": t["malformed"],
            "injected_conflict": t["injected_conflict"], "theta": t["theta"], "se_true": t["se"],
            "rejected": t["kernel_id"] in reasons, "reject_reason": reasons.get(t["kernel_id"], ""),
            "extracted": matched, "value": k.value if k else np.nan, "se": k.se if k else np.nan,
            "method": k.method if k else "", "naive_value": n.value if n else np.nan,
            "correct": bool(matched and correct(k.value, t["theta"], cfg)),
            "naive_correct": bool(n is not None and matched and correct(n.value, t["theta"], cfg)),
            "flagged": t["kernel_id"] in flagged, "truth_edge_effect": t["truth_edge_effect"],
            "cell_default": claims[k.cell]["value"] if k is not None and k.cell in claims else np.nan,
            "cell_pooled_all": cell_all.get(k.cell, np.nan) if k is not None else np.nan,
            "kept_in_default": bool(k is not None and k.cell in claims and k.kernel_id in claims[k.cell]["kept"]),
            "edge_pooled": pooled[t["exposure"]][t["outcome"]]["pooled"]["value"]
            if pooled.has_edge(t["exposure"], t["outcome"]) else np.nan,
        })
    return pd.DataFrame(rows)


def conflict_table(compiled, truth, cfg) -> pd.DataFrame:
    injected = {t["kernel_id"] for t in truth if t["injected_conflict"]}
    rows = []
    for level in cfg.compiler.pr_levels:
        found = method.detect_conflicts(compiled, level, cfg.compiler.i2_threshold)
        hit = {i for pair in found.pairs for i in pair} & injected
        true_pairs = [p for p in found.pairs if set(p) & injected]
        rows.append({"level": level, "default": math.isclose(level, cfg.compiler.ci_level), "injected": len(injected),
                     "detected_pairs": len(found.pairs), "true_pairs": len(true_pairs),
                     "recall": len(hit) / len(injected) if injected else np.nan,
                     "precision": len(true_pairs) / len(found.pairs) if found.pairs else np.nan})
    return pd.DataFrame(rows)


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


def query_table(scm, structure, graphs: dict, abstracts, vocab, cfg, rng, data) -> pd.DataFrame:
    index = baselines.SentenceIndex(abstracts, vocab)
    rows = []
    for qi, q in enumerate(sample_queries(scm, cfg, rng)):
        unit = {v: float(data[v][qi]) for v in scm.continuous}
        truth = _flat(truth_of(scm, q, cfg, unit))
        cohort_value = np.nan
        if q["type"] == "do":
            cohort_value = cohort.adjusted_effect(data, q["x"], q["y"], sorted(scm.dag.predecessors(q["x"])),
                                                  scm.kind(q["y"]) == "binary")
        target = "->".join([q["x"]] + ([q["x2"]] if "x2" in q else []) + [q["y"]])
        base = {"query": qi, "type": q["type"], "target": target, "truth": ";".join(f"{t:.6g}" for t in truth),
                "truth_main": sum(truth) if q["type"] == "mechanistic" else truth[len(truth) // 2 if q["type"] ==
                                                                                  "temporal" else 0],
                "cohort": cohort_value}
        for name, effects in graphs.items():
            r = execute(q, structure, effects, cfg, unit)
            answer = _flat(r.answer) if r.executable else None
            main = np.nan
            if answer is not None:
                main = sum(answer) if q["type"] == "mechanistic" else answer[len(answer) // 2 if q["type"] ==
                                                                             "temporal" else 0]
            rows.append({**base, "method": name, "executable": r.executable, "missing": ";".join(r.missing),
                         "answer": ";".join(f"{a:.6g}" for a in answer) if answer else "", "answer_main": main,
                         "abs_error": float(np.mean(np.abs(np.array(answer) - np.array(truth)))) if answer else np.nan})
        names = [q["x"]] + ([q["x2"]] if "x2" in q else []) + [q["y"]]
        hits = index.retrieve(names)
        rows.append({**base, "method": "retrieval", "executable": False,
                     "missing": f"no estimand compiled ({len(hits)} sentences retrieved)", "answer": "",
                     "answer_main": np.nan, "abs_error": np.nan, "retrieved": len(hits)})
    return pd.DataFrame(rows)


def run(cfg, seed: int) -> dict[str, pd.DataFrame]:
    scm = SCM.from_config(cfg)
    abstracts, truth = corpus.generate(cfg, seed)
    vocab = Vocabulary(scm.variables)
    records = extract_all(abstracts, vocab)
    compiled, rejected = method.compile_records(records, scm.variables)
    method.score_quality(compiled, cfg)
    conflicts = method.detect_conflicts(compiled, cfg.compiler.ci_level, cfg.compiler.i2_threshold)
    claims = method.default_claims(compiled, conflicts)
    graph = method.build_graph(claims, scm.variables)
    naive, _ = baselines.naive_kernels(records, scm.variables)
    method.score_quality(naive, cfg)
    naive_claims = method.default_claims(naive, method.detect_conflicts(naive, cfg.compiler.ci_level,
                                                                        cfg.compiler.i2_threshold))
    pooled = method.pooled_graph(compiled, scm.variables)
    graphs = {"compiled": Q.EdgeEffects(graph), "naive": Q.EdgeEffects(method.build_graph(naive_claims, scm.variables)),
              "pooled": Q.EdgeEffects(pooled, pooled=True)}
    rng = np.random.default_rng([seed, 18, 1])
    data = scm.simulate(int(cfg.cohort.n), rng)
    kernels = kernel_table(truth, compiled, rejected, naive, conflicts, cfg, claims, pooled)
    qtable = query_table(scm, scm.dag, graphs, abstracts, vocab, cfg, rng, data)
    ctable = conflict_table(compiled, truth, cfg)
    for frame in (kernels, qtable, ctable):
        frame.insert(0, "seed", seed)
    return {"kernels": kernels, "queries": qtable, "conflicts": ctable}

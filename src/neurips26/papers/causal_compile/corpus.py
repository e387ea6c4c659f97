"""The evidence generator: templated study abstracts drawn from the known SCM, reporting kernels on random scales,
with injected conflicts and a few malformed statements. Every kernel's ground truth is kept beside its text."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from neurips26.papers.causal_compile import conversions as cv
from neurips26.papers.causal_compile.injection import Injector as _Injector
from neurips26.papers.causal_compile.scm import SCM

POPULATION_TEXT = {"adults": "adults aged 18 years or older", "older adults": "older adults (aged 65 years or older)",
                   "younger adults": "younger adults (aged 18 to 64 years)"}
DESIGN_TEXT = {"rct": "In this randomized controlled trial", "cohort": "In this prospective cohort study",
               "case_control": "In this case-control study"}


def _horizon_text(months: int, rng) -> str:
    choices = [f"{months} months"]
    if months % 12 == 0:
        years = months // 12
        choices.append(f"{years} year" + ("s" if years > 1 else ""))
    if months <= 12:
        choices.append(f"{round(months * 30.4375 / 7)} weeks")
    return choices[rng.integers(len(choices))]


def _pick(rng, weights: dict) -> str:
    keys = list(weights)
    p = np.array([weights[k] for k in keys], float)
    return keys[rng.choice(len(keys), p=p / p.sum())]


def _fmt(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def _report(k: dict, rng, cfg) -> None:
    """Fill the reported scale, estimate and CI of kernel k from its canonical estimate theta and SE."""
    z = cv.z_of(0.95)
    sign = -1.0 if k["reversed"] else 1.0
    lo_c, hi_c = k["theta"] - z * k["se"], k["theta"] + z * k["se"]
    points = [sign * k["theta"], sign * lo_c, sign * hi_c]  # on the canonical scale, in the stated direction
    if k["outcome_kind"] == "binary":
        p0 = k["baseline_risk"]
        scale = k["scale"]
        if scale == "RR":
            vals = [math.exp(t) for t in points]
        elif scale == "OR":
            vals = [cv.rr_to_or(math.exp(t), p0) for t in points]
        else:
            vals = [cv.rr_to_hr(math.exp(t), p0) for t in points]
    else:
        scale = k["scale"]
        if scale == "SMD":
            vals = points
        elif scale == "MD":
            vals = [t * k["outcome_sd"] for t in points]
        else:  # the continuous outcome dichotomised at threshold c (in SD units): exact normal-model odds ratio
            c = k["threshold"]
            p_ref = norm.sf(c)
            vals = [math.exp(math.log(norm.sf(c - t) / norm.cdf(c - t)) - math.log(p_ref / (1 - p_ref))) for t in points]
    est, lo, hi = vals[0], min(vals[1:]), max(vals[1:])
    k.update(reported=est, reported_low=lo, reported_high=hi)


def _sentence(k: dict, names: dict, rng) -> str:
    x, y = names[k["exposure"]], names[k["outcome"]]
    direction = "lower" if k["reversed"] else "higher"
    contrast = f"a one-standard-deviation {direction} {x}"
    digits = 1 if k["scale"] == "MD" else 2
    v, lo, hi = (_fmt(k[f], digits) for f in ("reported_text", "low_text", "high_text"))
    h = k["horizon_text"]
    prefix = "" if k["population"] == "adults" else f"Among {POPULATION_TEXT[k['population']]}, "
    start = (prefix + "at") if prefix else "At"
    ratio_ci = [f"(95% CI {lo}-{hi})", f"(95% CI, {lo} to {hi})", f"(95% confidence interval {lo} to {hi})"]
    ci = ratio_ci[rng.integers(3)] if k["scale"] in ("RR", "OR", "HR") else \
        [f"(95% CI {lo} to {hi})", f"[95% CI {lo}, {hi}]"][rng.integers(2)]
    p0 = f"{100 * k['baseline_risk']:.1f}%" if k.get("baseline_risk") else None
    s = k["scale"]
    if k["outcome_kind"] == "binary":
        tail = ""
        if s != "RR" and k["p0_reported"]:
            tail = f"; the risk of {y} in the reference group was {p0}"
        label = {"RR": ["relative risk", "risk ratio", "RR"], "OR": ["odds ratio", "OR", "odds ratio"],
                 "HR": ["hazard ratio", "HR", "hazard ratio"]}[s][rng.integers(3)]
        article = "an" if label[0] in "aeiouHRO" else "a"
        forms = [f"{start} {h}, {contrast} was associated with {article} {label} for {y} of {v} {ci}{tail}.",
                 f"{start} {h}, the {label} of {y} per {contrast} was {v} {ci}{tail}."]
    elif s == "OR":
        label = ["odds ratio", "OR"][rng.integers(2)]
        forms = [f"{start} {h}, {contrast} was associated with an {label} for elevated {y} (above "
                 f"{k['threshold']:+.1f} SD) of {v} {ci}."]
    elif s == "SMD":
        label = ["standardized mean difference", "SMD", "Cohen's d"][rng.integers(3)]
        forms = [f"{start} {h}, {contrast} changed {y} by a {label} of {v} {ci}.",
                 f"{start} {h}, the {label} in {y} per {contrast} was {v} {ci}."]
    else:
        unit = k["unit"]
        forms = [f"{start} {h}, {contrast} changed {y} by a mean difference of {v} {unit} "
                 f"{ci[:-1]}; SD {k['outcome_sd']:.1f} {unit}{ci[-1]}."]
    return forms[rng.integers(len(forms))]


def _malform(k: dict, rng) -> None:
    kind = ["ci_excludes", "ci_reversed", "horizon_unit"][rng.integers(3)]
    k["malformed"] = kind
    if kind == "ci_excludes":
        width = k["high_text"] - k["low_text"]
        k["reported_text"] = k["high_text"] + max(width, 0.2)
    elif kind == "ci_reversed":
        k["low_text"], k["high_text"] = k["high_text"], k["low_text"]
    else:
        k["horizon_text"] = f"{k['horizon'] // 6 + 1} fortnights"


def generate(cfg, seed: int) -> tuple[list[dict], list[dict]]:
    """Abstracts [{study_id, text, ...}] and kernels [{ground truth of every reported effect}]."""
    rng = np.random.default_rng([seed, 18])
    scm = SCM.from_config(cfg)
    c = cfg.corpus
    names = {v: scm.variables[v]["names"][0] for v in scm.variables}
    edges = sorted(scm.edges)
    studied = [e for e in edges if rng.random() >= c.p_unstudied_edge]
    horizons = list(c.horizons)
    studies, kernels = [], []

    def kernel(study, edge, population, horizon, theta, se, conflict=False, stratum=""):
        e = scm.edges[edge]
        kind = scm.kind(edge[1])
        k = {"study_id": study["study_id"], "kernel_id": f"{study['study_id']}-k{len(study['kernels'])}",
             "exposure": edge[0], "outcome": edge[1], "outcome_kind": kind, "population": population,
             "horizon": horizon, "truth_edge_effect": e.at(horizon, population), "theta": theta, "se": se,
             "design": study["design"], "n": study["n"], "reversed": study["reversed"],
             "injected_conflict": conflict, "stratum": stratum, "malformed": "", "baseline_risk": None, "p0_reported": False,
             "outcome_sd": None, "unit": None, "threshold": None}
        if kind == "binary":
            k["scale"] = study["scale"]
            k["baseline_risk"] = study["baseline_risk"]
            k["p0_reported"] = study["p0_reported"]
            k["theta"] = float(np.clip(theta, -2.5, math.log(0.95 / k["baseline_risk"]) - 2 * se))
        else:
            k["scale"] = study["scale"]
            k["outcome_sd"] = float(scm.variables[edge[1]]["sd"])
            k["unit"] = scm.variables[edge[1]]["unit"]
            k["threshold"] = study["threshold"]
        _report(k, rng, cfg)
        digits = 1 if k["scale"] == "MD" else 2
        k["reported_text"], k["low_text"], k["high_text"] = (round(k[f], digits) for f in
                                                             ("reported", "reported_low", "reported_high"))
        k["horizon_text"] = _horizon_text(horizon, rng)
        if not stratum and rng.random() < c.p_malformed:  # labelled kernels are always well formed
            _malform(k, rng)
        study["kernels"].append(k)
        return k

    def new_study(edge, design=None, scale=None):
        kind = scm.kind(edge[1])
        study = {"study_id": f"S{len(studies):04d}", "edge": edge, "kernels": [],
                 "design": design or _pick(rng, c.designs),
                 "n": int(np.exp(rng.uniform(*np.log(c.n_range)))), "reversed": bool(rng.random() < c.p_reversed_contrast),
                 "scale": scale or _pick(rng, c.binary_scales if kind == "binary" else c.continuous_scales),
                 "baseline_risk": float(rng.uniform(*c.baseline_risk)), "p0_reported": True,
                 "threshold": float(rng.uniform(*c.dichotomy_threshold))}
        study["p0_reported"] = bool(rng.random() >= c.p_missing_baseline_risk)
        studies.append(study)
        return study

    def se_of(study, edge):
        se = 2.0 / math.sqrt(study["n"])  # SMD: sqrt(4/n); log RR: scaled by the outcome's rarity
        if scm.kind(edge[1]) == "binary":
            se *= math.sqrt(0.25 / study["baseline_risk"])
        return se

    for _ in range(int(c.studies)):
        edge = studied[rng.integers(len(studied))]
        study = new_study(edge)
        h = horizons[rng.integers(len(horizons))]
        se = se_of(study, edge)
        kernel(study, edge, "adults", h, scm.edges[edge].at(h) + se * rng.standard_normal(), se)
        if rng.random() < c.p_second_horizon and h != horizons[-1]:
            h2 = horizons[horizons.index(h) + 1 + rng.integers(len(horizons) - horizons.index(h) - 1)]
            kernel(study, edge, "adults", h2, scm.edges[edge].at(h2) + se * rng.standard_normal(), se)
        if rng.random() < c.p_subgroups:
            for group in ("older adults", "younger adults"):
                sub_se = se * math.sqrt(2)
                kernel(study, edge, group, h, scm.edges[edge].at(h, group) + sub_se * rng.standard_normal(), sub_se)

    honest = [k for k in kernels_of(studies) if k["population"] == "adults" and not k["malformed"]]
    inject = _Injector(scm, c, rng, new_study, kernel, studies, studied)
    for stratum, count in c.conflicts.items():
        for _ in range(int(count)):
            inject.conflict(stratum, honest)
    for kind, count in c.look_alikes.items():
        for _ in range(int(count)):
            inject.look_alike(kind, honest)

    abstracts = []
    for study in studies:
        kernels.extend(study["kernels"])
        abstracts.append({"study_id": study["study_id"], "text": _abstract(study, names, scm, rng)})
    return abstracts, kernels


def kernels_of(studies: list[dict]) -> list[dict]:
    return [k for s in studies for k in s["kernels"]]


def _abstract(study: dict, names: dict, scm, rng) -> str:
    x, y = (names[v] for v in study["edge"])
    intro = [f"Background: the effect of {x} on {y} remains uncertain.",
             f"Objective: to estimate how {x} affects {y}."][rng.integers(2)]
    last = max(study["kernels"], key=lambda k: k["horizon"])
    methods = (f"Methods: {DESIGN_TEXT[study['design']]} we followed {study['n']} {POPULATION_TEXT['adults']} for up to "
               f"{last['horizon_text']}.")
    results = " ".join(_sentence(k, names, rng) for k in study["kernels"])
    return f"{intro} {methods} Results: {results} Conclusions: {x} is related to {y}."

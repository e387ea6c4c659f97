"""The six queries against do-calculus on the known SCM: with the SCM's own edge effects as kernels, every query
must equal the interventional quantity computed independently (the mutilated graph in closed form, a brute-force
forward simulation of the intervened SCM, or backdoor adjustment on a simulated cohort)."""

import networkx as nx
import numpy as np
import pytest

from neurips26.common.pipeline.config import compose
from neurips26.papers.causal_compile import queries as Q
from neurips26.papers.causal_compile.cohort import adjusted_effect
from neurips26.papers.causal_compile.scm import SCM


@pytest.fixture(scope="module")
def scm():
    return SCM.from_config(compose("causal_compile", ["scale=tiny"]))


@pytest.fixture(scope="module")
def scm_plain():
    """The same structure without effect modification (log-linear outcomes are then exactly log-linear)."""
    cfg = compose("causal_compile", ["scale=tiny"])
    s = SCM.from_config(cfg)
    edges = [[e.parent, e.child, e.beta, e.tau, 0.0] for e in s.edges.values()]
    return SCM(s.variables, edges, 12)


def forward(scm, fixed: dict, noise: dict, horizon=12.0) -> dict:
    """Brute force: evaluate the structural equations in order with `fixed` variables forced (the mutilated SCM)."""
    values = {}
    for v in scm.continuous:
        if v in fixed:
            values[v] = np.full_like(noise[v], fixed[v])
        else:
            values[v] = noise[v] + sum(scm.edges[(p, v)].at(horizon) * values[p] for p in scm.dag.predecessors(v))
    return values


def test_every_continuous_variable_has_unit_variance(scm):
    _, cov = scm.moments()
    assert np.diag(cov) == pytest.approx(np.ones(len(scm.continuous)), abs=1e-12)


@pytest.mark.parametrize("x, y", [("exercise", "systolic_bp"), ("exercise", "crp"), ("diet_quality", "crp"),
                                  ("statin", "crp"), ("bmi", "systolic_bp")])
def test_do_query_equals_the_intervened_scm(scm, x, y):
    rng = np.random.default_rng(0)
    noise = {v: np.sqrt(scm.noise_var[scm.index[v]]) * rng.standard_normal(1000) for v in scm.continuous}
    brute = (forward(scm, {x: 1.0}, noise)[y] - forward(scm, {x: 0.0}, noise)[y]).mean()
    answer = Q.do_query(scm.dag, Q.TrueEffects(scm), x, y, 12.0)
    assert answer.executable
    assert answer.answer == pytest.approx(brute, abs=1e-10)
    assert answer.answer == pytest.approx(scm.interventional_effect(y, {x: 1.0}, {x: 0.0}), abs=1e-10)


@pytest.mark.parametrize("x, y", [("exercise", "mi"), ("statin", "mi"), ("bmi", "diabetes"), ("smoking", "stroke")])
def test_do_query_on_binary_outcomes_is_the_interventional_log_risk_ratio(scm_plain, x, y):
    """Closed form: the log-linear risk under do(X) is Gaussian in eta, so log RR is the path sum exactly."""
    answer = Q.do_query(scm_plain.dag, Q.TrueEffects(scm_plain), x, y, 12.0).answer
    assert answer == pytest.approx(scm_plain.interventional_effect(y, {x: 1.0}, {x: 0.0}), abs=1e-10)
    # Monte Carlo of the intervened SCM (independent of the closed form): risk ratio of mean risks
    rng = np.random.default_rng(1)
    n = 400_000
    noise = {v: np.sqrt(scm_plain.noise_var[scm_plain.index[v]]) * rng.standard_normal(n) for v in scm_plain.continuous}

    def risk(fixed):
        values = forward(scm_plain, fixed, noise)
        eta = sum(scm_plain.edges[(p, y)].at(12.0) * values[p] for p in scm_plain.dag.predecessors(y))
        return (scm_plain.variables[y]["base_risk"] * np.exp(eta)).mean()

    assert np.log(risk({x: 1.0}) / risk({x: 0.0})) == pytest.approx(answer, abs=0.01)


def test_effect_modification_makes_the_population_log_rr_a_mixture(scm):
    """With age-group modifiers the exact interventional log RR differs (slightly) from the average-beta path sum."""
    exact = scm.interventional_effect("diabetes", {"glucose": 1.0}, {"glucose": 0.0})
    linear = Q.do_query(scm.dag, Q.TrueEffects(scm), "glucose", "diabetes", 12.0).answer
    assert exact != pytest.approx(linear, abs=1e-6)
    assert exact == pytest.approx(linear, abs=0.05)


def test_backdoor_adjustment_on_a_cohort_recovers_the_do_effect(scm_plain):
    """bmi -> mi is confounded by exercise (exercise -> bmi, exercise -> mi): adjusting for bmi's parents recovers
    the do-effect, the unadjusted regression does not."""
    data = scm_plain.simulate(200_000, np.random.default_rng(2))
    truth = scm_plain.interventional_effect("systolic_bp", {"bmi": 1.0}, {"bmi": 0.0})
    adjusted = adjusted_effect(data, "bmi", "systolic_bp", ["exercise", "diet_quality"], binary=False)
    naive = adjusted_effect(data, "bmi", "systolic_bp", [], binary=False)
    assert adjusted == pytest.approx(truth, abs=0.01)
    assert abs(naive - truth) > 0.03
    truth_mi = scm_plain.interventional_effect("mi", {"bmi": 1.0}, {"bmi": 0.0})
    assert adjusted_effect(data, "bmi", "mi", ["exercise", "diet_quality"], binary=True) == pytest.approx(truth_mi,
                                                                                                         abs=0.05)


def test_counterfactual_is_abduction_action_prediction(scm):
    rng = np.random.default_rng(3)
    data = scm.simulate(5, rng)
    for i in range(5):
        unit = {v: float(data[v][i]) for v in scm.continuous}
        r = Q.counterfactual_query(scm.dag, Q.TrueEffects(scm), "exercise", "crp", unit, unit["exercise"] + 1.0, 12.0)
        assert r.answer == pytest.approx(scm.counterfactual(unit, "exercise", unit["exercise"] + 1.0)["crp"], abs=1e-10)
        # linear SCM: the unit's counterfactual change is the average causal effect
        te = scm.interventional_effect("crp", {"exercise": 1.0}, {"exercise": 0.0})
        assert r.answer - unit["crp"] == pytest.approx(te, abs=1e-10)


def test_mechanistic_parts_add_up_to_the_total(scm):
    r = Q.mechanistic_query(scm.dag, Q.TrueEffects(scm), "bmi", "crp", 12.0)
    direct, mediated = r.answer
    assert direct == pytest.approx(scm.edges[("bmi", "crp")].at(12.0))
    assert direct + mediated == pytest.approx(scm.interventional_effect("crp", {"bmi": 1.0}, {"bmi": 0.0}), abs=1e-10)
    # the mediated part: the effect with the direct edge cut
    cut = [[e.parent, e.child, e.beta, e.tau, e.delta] for k, e in scm.edges.items() if k != ("bmi", "crp")]
    cut_scm = SCM(scm.variables, cut, 12)
    assert mediated == pytest.approx(Q.do_query(cut_scm.dag, Q.TrueEffects(cut_scm), "bmi", "crp", 12.0).answer)


def test_joint_intervention_equals_the_doubly_intervened_scm(scm):
    r = Q.joint_query(scm.dag, Q.TrueEffects(scm), "exercise", "bmi", "systolic_bp", 12.0)
    truth = scm.interventional_effect("systolic_bp", {"exercise": 1.0, "bmi": 1.0}, {"exercise": 0.0, "bmi": 0.0})
    assert r.answer == pytest.approx(truth, abs=1e-10)


def test_temporal_trajectory_and_heterogeneity(scm):
    r = Q.temporal_query(scm.dag, Q.TrueEffects(scm), "statin", "ldl", [6, 12, 24, 48])
    truth = [scm.interventional_effect("ldl", {"statin": 1.0}, {"statin": 0.0}, h) for h in (6, 12, 24, 48)]
    assert r.answer == pytest.approx(truth, abs=1e-10)
    h = Q.heterogeneous_query(scm.dag, Q.TrueEffects(scm), "statin", "ldl", 12.0)
    e = scm.edges[("statin", "ldl")]
    assert h.answer == pytest.approx(e.delta * (1 - np.exp(-12 / e.tau)))


def _graph(claims: dict) -> nx.DiGraph:
    g = nx.DiGraph()
    for (x, y), cells in claims.items():
        g.add_edge(x, y, claims={k: {"value": v} for k, v in cells.items()})
    return g


def test_interpolation_between_horizons_and_no_extrapolation():
    g = _graph({("a", "b"): {("adults", 6): 0.2, ("adults", 24): 0.5}})
    eff = Q.EdgeEffects(g)
    assert eff.effect("a", "b", 12.0) == pytest.approx(0.2 + 0.3 * 6 / 18)
    assert eff.effect("a", "b", 6.0) == pytest.approx(0.2)
    assert eff.effect("a", "b", 48.0) is None
    assert eff.effect("a", "b", 12.0, "older adults") is None


def test_missing_kernels_make_a_query_not_executable_and_are_named():
    structure = nx.DiGraph([("a", "m"), ("m", "y"), ("a", "y")])
    g = _graph({("a", "m"): {("adults", 12): 0.5}, ("a", "y"): {("adults", 12): 0.1}})
    r = Q.do_query(structure, Q.EdgeEffects(g), "a", "y", 12.0)
    assert not r.executable and r.answer is None
    assert r.missing == ["m->y@12mo"]
    g.add_edge("m", "y", claims={("adults", 12): {"value": 0.4}})
    r = Q.do_query(structure, Q.EdgeEffects(g), "a", "y", 12.0)
    assert r.executable and r.answer == pytest.approx(0.1 + 0.5 * 0.4)
    h = Q.heterogeneous_query(structure, Q.EdgeEffects(g), "a", "y", 12.0)
    assert not h.executable and h.missing == ["a->y[older adults]@12mo", "a->y[younger adults]@12mo"]
    t = Q.temporal_query(structure, Q.EdgeEffects(g), "a", "y", [12, 24])
    assert not t.executable and "a->m@24mo" in t.missing

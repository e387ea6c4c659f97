"""The paper's claims (contract v2), measured per seed from the run CSVs; bounds come from the config's `claims`
(fixed before any result was seen). Every test is a 95% t interval over seeds of a per-seed statistic (a real pool's
accuracies are first averaged over that seed's calibration/test halves), except the closed-form information checks,
which are exact and state their own rule. The floor formula, its monotonicity in rho and the estimator check verify
our own derivation and estimator (issue #69): construction checks, kind 'sanity'."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, RuleTest, SeedTest, paired

BASELINES = ("top_k", "random_k", "greedy_acc", "acc_div")
PAPER = "arXiv 2602.08003 v1 (accuracy-vs-budget figures on MedMCQA, MMLU, IMDB); the abstract gives no number"


def _curves(runs: pd.DataFrame, task: str, method: str) -> pd.DataFrame:
    """Accuracy per seed (rows) and budget (columns), averaged over the seed's calibration/test halves."""
    rows = runs[(runs.kind == "selection") & (runs.task == task) & (runs.method == method)]
    return rows.groupby(["seed", "budget"]).accuracy.mean().unstack("budget").sort_index(axis=1)


def _gap(runs, task) -> pd.DataFrame:
    """greedy-MI minus top-k per seed and budget (the budgets both have)."""
    return (_curves(runs, task, "greedy_mi") - _curves(runs, task, "top_k")).dropna(axis=1, how="all")


def _saturation(curve: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per seed (gain over the first half of the budget, gain over the last half): acc(B/2) - acc(1), acc(B) - acc(B/2)."""
    budgets = list(curve.columns)
    mid = budgets[len(budgets) // 2 - 1] if len(budgets) > 1 else budgets[0]
    return curve[mid] - curve[budgets[0]], curve[budgets[-1]] - curve[mid]


def _topk_tests(runs, task: str, tie: float, margin: float, label: str = "") -> list[SeedTest]:
    gap = _gap(runs, task)
    name = label or task
    return [SeedTest(f"{name}: smallest greedy-MI - top-k gap over budgets", gap.min(axis=1), ">", -tie),
            SeedTest(f"{name}: largest greedy-MI - top-k gap over budgets", gap.max(axis=1), ">", margin)]


def build(runs: pd.DataFrame, cfg) -> list[Claim]:
    c = cfg.claims
    tasks = set(runs.task.dropna())
    sims = sorted(t for t in tasks if t.startswith("sim"))
    reals = [t for t in cfg.tasks.names if t in tasks]
    paper_value = {"value": None, "where": PAPER}

    tie, margin = float(c.tie_tolerance), float(c.strict_margin)
    topk_sim = Claim(
        "greedy_mi_vs_topk_simulator",
        "on the Gaussian-copula pool (one accurate but redundant cluster), greedy-MI accuracy >= top-k accuracy at "
        f"every budget (ties within {tie:g}) and strictly better (by > {margin:g}) at some budget, for every K",
        f"per K and seed, the smallest greedy-MI - top-k accuracy gap over the budgets: 95% t interval above -{tie:g};"
        f" and the largest gap: interval above {margin:g}",
        [t for task in sims for t in _topk_tests(runs, task, tie, margin)],
        ["tables/main.csv", "figures/acc_vs_budget.png"], paper_value, source="brief")

    real_tie = float(c.real_tie_tolerance)
    measured = {}
    for t in reals:  # headroom (reported, not judged): the test-peeking forward selection against top-k
        oracle = _curves(runs, t, "oracle")
        if oracle.size:
            measured[f"{t}_oracle_minus_topk_max"] = float((oracle - _curves(runs, t, "top_k")).mean().max())
    controls = []
    ctl = cfg.control
    for t in reals:
        if f"{t}_dup" in tasks:
            for part, test in zip(("ties", "strict"), _topk_tests(runs, f"{t}_dup", real_tie, margin)):
                controls.append(Control(
                    f"planted_{t}_{part}", "positive",
                    f"{t} with {ctl.copies} planted near copies of the calibration-best member (each with {ctl.noise:g} "
                    f"of its predictions replaced by a random other label) and {ctl.diverse} planted decorrelated "
                    f"members (the most accurate members >= {ctl.diverse_gap:g} below it, moved to random rows of the "
                    f"same class), so that top-k's sets are copies while a better set exists; budgets "
                    f"1-{ctl.max_budget}", test))
    topk_real = Claim(
        "greedy_mi_vs_topk_real",
        f"on the real pools ({', '.join(reals)}), greedy-MI accuracy >= top-k accuracy at every budget (ties within "
        f"{real_tie:g}) and better by > {margin:g} at some budget",
        f"per pool and seed (accuracy averaged over the seed's calibration/test halves), the smallest greedy-MI - "
        f"top-k gap over the budgets: 95% t interval above -{real_tie:g}; and the largest gap: interval above "
        f"{margin:g}; positive controls: the same tests on the planted pools",
        [t for task in reals for t in _topk_tests(runs, task, real_tie, margin)],
        ["tables/main.csv", "figures/acc_vs_budget.png", "tables/selected_models.csv"], paper_value, source="brief",
        controls=controls, measured=measured)

    ratio = float(c.saturation_ratio)
    tests = []
    for t in sims + reals:
        first, last = _saturation(_curves(runs, t, "greedy_mi"))
        tests.append(SeedTest(f"{t}: {ratio:g} x first-half gain - last-half gain", ratio * first - last, ">", 0.0))
    saturation = Claim(
        "saturation",
        f"greedy-MI accuracy saturates: the gain over the last half of the budget is < {ratio:g} x the gain over the "
        "first half (from budget 1), on every pool",
        f"per pool and seed, {ratio:g} x (acc(B/2) - acc(1)) - (acc(B) - acc(B/2)) of greedy-MI: 95% t interval above "
        "0 on every pool", tests, ["tables/main.csv", "figures/acc_vs_budget.png", "figures/mi_vs_budget.png"],
        paper_value)

    floor_explains = Claim(
        "floor_explains_saturation",
        "the Gaussian-copula model of correlated errors gives an information-theoretic error floor that explains why "
        "ensemble accuracy saturates with many models",
        "the copula fitted to each pool predicts the vote floor at the pool's size, compared with the observed "
        "plateau (not implemented)", [], ["tables/floor.csv", "figures/error_floor_vs_rho.png"],
        {"value": None, "where": "arXiv 2602.08003 v1, the error-floor theorem and its figure"},
        why_not_tested="no pool is fitted with the copula, so no predicted floor is compared with an observed "
                       "plateau (issue #69); the floor's closed form is checked only against a simulation of the same "
                       "model (sanity copula_floor_formula)")

    floor = runs[runs.kind.isin(["vote", "information"])]
    vote, info = floor[floor.kind == "vote"], floor[floor.kind == "information"]
    floor_error = (vote.simulated - vote.closed_form).abs().groupby(vote.seed).max()
    exact = {"max_information_over_ceiling": float((info.information - info.ceiling).max()) if len(info) else None,
             "max_fano_over_floor": float((info.fano_floor - info.closed_form).max()) if len(info) else None}
    formula = Claim(
        "copula_floor_formula",
        "the plurality vote of many equicorrelated models errs at Phi((Phi^-1(eps) - sqrt(1-rho) Phi^-1((K-1)/K)) / "
        "sqrt(rho)) (simulation within the tolerance over the eps x rho x K grid); I(Y; votes of M models) never "
        "exceeds the ceiling I(Y; F), whose Fano floor lies below the vote floor",
        f"per seed, the largest |simulated - closed-form floor| over the grid: 95% t interval below "
        f"{float(c.floor_tolerance):g}; the exact information values (no seed): information <= ceiling + 1e-6 and "
        "Fano floor <= vote floor everywhere",
        [SeedTest("largest |simulated - closed-form floor|", floor_error, "<", float(c.floor_tolerance)),
         RuleTest("information ceiling and Fano floor", exact,
                  "max_information_over_ceiling <= 1e-6 and max_fano_over_floor <= 0",
                  "max_information_over_ceiling > 1e-6 or max_fano_over_floor > 0",
                  rule="exact (enumerated) values, no seed: holds when every information value is at most the ceiling "
                       "(+1e-6) and every Fano floor at most the vote floor; fails otherwise")],
        ["tables/floor.csv", "figures/error_floor_vs_rho.png"], paper_value, kind="sanity")

    def steps(column: str) -> pd.Series:
        """Per seed: the smallest step of `column` along the rho grid over every (K, eps)."""
        out = {}
        for seed, part in vote.groupby("seed"):
            out[seed] = min(np.diff(p.sort_values("rho")[column].to_numpy()).min()
                            for _, p in part.groupby(["classes", "eps"]))
        return pd.Series(out, dtype=float)

    closed_steps = steps("closed_form")
    rises = Claim(
        "floor_rises_with_rho",
        "the error floor rises with the latent correlation rho (every step of the rho grid, every eps and K; "
        "simulation with common random numbers)",
        "per seed, the smallest simulated step along the rho grid: 95% t interval above 0; the closed form's smallest "
        "step (no seed) above 0",
        [SeedTest("smallest simulated floor step along rho", steps("simulated"), ">", 0.0),
         RuleTest("smallest closed-form floor step along rho",
                  {"min_closed_form_step": float(closed_steps.min()) if len(closed_steps) else None},
                  "min_closed_form_step > 0", "min_closed_form_step <= 0",
                  rule="closed form, no seed: holds when every step is positive, fails otherwise")],
        ["tables/floor.csv", "figures/error_floor_vs_rho.png"], paper_value, source="brief", kind="sanity")

    tol = float(c.baseline_tolerance)
    tests = []
    for t in sims + reals:
        greedy = _curves(runs, t, "greedy_mi")
        for base in BASELINES:
            other = _curves(runs, t, base)
            budgets = [b for b in greedy.columns if b in other.columns]
            tests.append(SeedTest(f"{t}: greedy-MI - {base}, accuracy averaged over budgets",
                                  paired(greedy[budgets].mean(axis=1), other[budgets].mean(axis=1)), ">", -tol))
        best = greedy.max(axis=1)
        for base in ("all_vote", "best_single"):
            tests.append(SeedTest(f"{t}: greedy-MI's best budget - {base}",
                                  paired(best, _curves(runs, t, base).iloc[:, 0]), ">", 0.0))
    baselines = Claim(
        "greedy_mi_beats_baselines",
        "at equal budget greedy-MI beats the baselines: its accuracy averaged over the budget sweep is at least that "
        f"of top-k, random-k, greedy accuracy and accuracy + diversity (tolerance {tol:g}), and its best budget beats "
        "the all-model vote and the best single model, on every embedded pool",
        f"per pool, paired per-seed differences greedy-MI - baseline of the accuracy averaged over budgets: every 95% "
        f"t interval above -{tol:g}; greedy-MI's best budget - all-model vote and - best single member: every "
        "interval above 0", tests, ["tables/main.csv", "figures/acc_vs_budget.png"], paper_value)

    est = runs[runs.kind == "estimator"].copy()
    if len(est):
        est["classes"] = est.task.str.slice(5).astype(int)
        est = est[est.classes ** est.budget * int(c.cells_per_pattern) <= int(cfg.simulator.n_cal)]
        est["sq"] = (est.mi_plugin_mm - est.mi_true) ** 2
        rmse = est.groupby(["seed", "task", "budget"]).sq.mean().pow(0.5).groupby("seed").max()
    else:
        rmse = pd.Series(dtype=float)
    estimate = Claim(
        "mi_estimator_matches_exact",
        "the Miller-Madow plug-in MI from calibration draws matches exact MI (enumeration over all prediction "
        "patterns) on the copula simulator in its regime, stated before the run: subset sizes whose K^|S| patterns "
        f"get >= {c.cells_per_pattern} calibration draws each; RMSE <= {c.estimator_rmse} bits",
        f"per seed, the largest RMSE (over K and subset size in the regime) of the Miller-Madow plug-in against exact "
        f"MI: 95% t interval below {c.estimator_rmse}",
        [SeedTest("largest plug-in RMSE in the regime (bits)", rmse, "<", float(c.estimator_rmse))],
        ["tables/estimator.csv"], paper_value, source="brief", kind="sanity")

    paper = Claim(
        "paper_datasets",
        "greedy-MI consistently outperforms strong baselines under the same query budget on MedMCQA, MMLU, AG News and "
        "IMDB with a pool of LLMs",
        "per dataset, paired greedy-MI - baseline accuracy over seeds x halves with a pool of 1-9B LLMs (not wired)",
        [], ["tables/main.csv"], paper_value, decided_at="paper", decided_data="real",
        why_not_tested="needs scale=paper data=real (the Hugging Face datasets and a pool of 1-9B LLMs), which is not "
                       "wired: data=real stops with an error; the embedded run uses IMDB, Rotten Tomatoes and BBC News "
                       "(for AG News) with classical and MiniLM members (claim greedy_mi_beats_baselines)")
    correlated = Claim(
        "llms_strongly_correlated",
        "in practice LLMs are strongly correlated (their errors)",
        "error correlations of a pool of real LLMs on the paper's datasets (not wired)", [], ["config.yaml"],
        {"value": None, "where": "arXiv 2602.08003 v1, introduction"}, decided_at="paper", decided_data="real",
        why_not_tested="needs a pool of real LLMs (scale=paper data=real), which is not wired; the embedded pools "
                       "contain near copies by design, so their correlation says nothing about LLMs")
    return [topk_sim, topk_real, saturation, floor_explains, baselines, paper, correlated, formula, rises, estimate]

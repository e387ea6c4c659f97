"""One run = one job: the copula simulator for one K and seed, a real pool for one task and seed, the floor sweep.

Every selection method produces ordered picks on the calibration data (unit costs: budget b takes the first b); every
selected set is then judged on held-out data by the same aggregator fit on the calibration data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.ensemble_mi import baselines, copula, copula_fit
from neurips26.papers.ensemble_mi.aggregator import PatternAggregator, majority_vote
from neurips26.papers.ensemble_mi.information import estimate, exact_mi, heldout_mi, plugin_mi_se
from neurips26.papers.ensemble_mi.method import greedy_path


def selections(y, preds, n_classes: int, cfg, rng: np.random.Generator, methods=None,
               max_budget: int | None = None) -> dict[str, list[int]]:
    """method -> ordered picks over the budget sweep (1..max_budget, default M), chosen on calibration data only."""
    sel = cfg.selection
    m = preds.shape[1] if max_budget is None else min(int(max_budget), preds.shape[1])
    makers = {
        "greedy_mi": lambda: greedy_path(y, preds, n_classes, m, sel.estimator, float(sel.alpha))[0],
        "top_k": lambda: baselines.top_k(y, preds, m),
        "random_k": lambda: baselines.random_k(m, m, rng),
        "greedy_acc": lambda: baselines.greedy_accuracy(y, preds, n_classes, m, float(sel.alpha)),
        "acc_div": lambda: baselines.accuracy_diversity(y, preds, m, float(sel.diversity_weight)),
    }
    return {name: makers[name]() for name in (sel.methods if methods is None else methods)}


def evaluate(picks: dict[str, list[int]], cal, test, n_classes: int, alpha: float, exact=None) -> list[dict]:
    """Held-out accuracy (and MI) of every prefix of every method's picks, plus the all-model vote and best single."""
    (yc, pc), (yt, pt) = cal, test
    memo: dict[tuple, dict] = {}

    def judge(subset: list[int]) -> dict:
        key = tuple(sorted(subset))
        if key not in memo:
            agg = PatternAggregator(n_classes, alpha).fit(yc, pc[:, list(key)])
            mi, se = heldout_mi(yc, pc[:, list(key)], yt, pt[:, list(key)], n_classes, alpha, with_se=True)
            memo[key] = {"accuracy": float((agg.predict(pt[:, list(key)]) == yt).mean()),
                         "mi_heldout": mi, "mi_heldout_se": se}
            if exact is not None:
                memo[key]["mi_exact"], memo[key]["bayes_accuracy"], memo[key]["mi_exact_se"] = exact(list(key))
        return memo[key]

    rows = [{"method": name, "budget": b, **judge(order[:b]), "picks": " ".join(map(str, order[:b]))}
            for name, order in picks.items() for b in range(1, len(order) + 1)]
    everyone = list(range(pc.shape[1]))
    rows.append({"method": "all_vote", "budget": len(everyone), **judge(everyone),
                 "accuracy": float((majority_vote(pt, n_classes) == yt).mean()), "picks": "all"})
    best = baselines.best_single(yc, pc)
    rows.append({"method": "best_single", "budget": 1, **judge(best), "picks": str(best[0])})
    return rows


def run_simulator(cfg, n_classes: int, seed: int) -> pd.DataFrame:
    """Selection on the copula pool (calibration draws), judged on fresh draws, with exact-likelihood MI; plus the MI
    estimators against exact MI by enumeration on random small subsets."""
    rng = np.random.default_rng(seed)
    s = cfg.simulator
    pool = copula.Pool.from_clusters([dict(c) for c in s.clusters], n_classes)
    cal = copula.sample(pool, int(s.n_cal), rng)
    test = copula.sample(pool, int(s.n_test), rng)
    n_mi = int(s.n_mi)

    def exact(subset):
        return copula.mc_mi(pool, subset, test[0][:n_mi], test[1][:n_mi], with_se=True)

    picks = selections(*cal, n_classes, cfg, rng)
    rows = evaluate(picks, cal, test, n_classes, float(cfg.selection.alpha), exact)
    out = pd.DataFrame(rows).assign(kind="selection", task=f"sim_K{n_classes}")
    # the saturation claim's reference: the same members (same eps) with independent errors (rho = 0), full pool
    free = copula.Pool(pool.eps, pool.cluster, np.zeros_like(pool.rho), n_classes)
    acc = full_pool_accuracy(copula.sample(free, int(s.n_cal), rng), copula.sample(free, int(s.n_test), rng),
                             n_classes, float(cfg.selection.alpha))
    fitted = pd.DataFrame(copula_rows(cfg, f"sim_K{n_classes}", *cal, n_classes, rng))
    out = pd.concat([out, floor_pool_rows(cfg, n_classes, rng)], ignore_index=True)
    out = pd.concat([out, pd.DataFrame([{"task": f"sim_K{n_classes}_indep2", "method": "full_pool",
                                         "budget": pool.size, "accuracy": acc, "picks": "all"}]), fitted],
                    ignore_index=True).assign(kind="selection")
    checks = []
    for size in range(1, int(s.estimator_max_size) + 1):
        for rep in range(int(s.estimator_subsets)):
            subset = sorted(rng.choice(pool.size, size, replace=False).tolist())
            truth = exact_mi(copula.exact_joint(pool, subset))
            est = {name: estimate(name, cal[0], cal[1][:, subset], n_classes, float(cfg.selection.alpha))
                   for name in ("plugin", "plugin_mm", "cv_xent")}
            checks.append({"kind": "estimator", "budget": size, "replicate": rep, "picks": " ".join(map(str, subset)),
                           "mi_true": truth, **{f"mi_{k}": v for k, v in est.items()},
                           "se_plugin": plugin_mi_se(cal[0], cal[1][:, subset])})
    checks = pd.DataFrame(checks).assign(task=f"sim_K{n_classes}")
    return pd.concat([out, checks], ignore_index=True).assign(seed=seed)


def floor_pool_rows(cfg, n_classes: int, rng: np.random.Generator) -> pd.DataFrame:
    """The saturation claim's positive control (`simulator.floor_pool`): one equicorrelated cluster, where the copula
    puts a floor under the vote by construction. Greedy-MI to the full pool (task `sim_K<K>_floor`) and the same eps
    with rho = 0, full pool (`sim_K<K>_floor_indep2`)."""
    s, alpha = cfg.simulator, float(cfg.selection.alpha)
    pool = copula.Pool.from_clusters([dict(s.floor_pool)], n_classes)
    cal, test = copula.sample(pool, int(s.n_cal), rng), copula.sample(pool, int(s.n_test), rng)
    name = f"sim_K{n_classes}_floor"
    rows = pd.DataFrame(evaluate(selections(*cal, n_classes, cfg, rng, ("greedy_mi",)), cal, test, n_classes, alpha))
    free = copula.Pool(pool.eps, pool.cluster, np.zeros_like(pool.rho), n_classes)
    acc = full_pool_accuracy(copula.sample(free, int(s.n_cal), rng), copula.sample(free, int(s.n_test), rng),
                             n_classes, alpha)
    return pd.concat([rows.assign(task=name), pd.DataFrame([{"task": f"{name}_indep2", "method": "full_pool",
                                                             "budget": pool.size, "accuracy": acc, "picks": "all"}])],
                     ignore_index=True).assign(kind="selection")


def plant_copies(y_cal, preds: np.ndarray, n_classes: int, copies: int, noise: float,
                 rng: np.random.Generator, anchor: int | None = None) -> tuple[np.ndarray, int]:
    """The positive control's pool: a member (default: the calibration-best) duplicated `copies` times, each copy with a
    fraction `noise` of its predictions (all rows) replaced by a random other label. Returns (pool + copies, anchor)."""
    best = int(np.argmax((preds[: len(y_cal)] == y_cal[:, None]).mean(0))) if anchor is None else int(anchor)
    dup = np.repeat(preds[:, [best]], copies, axis=1)
    flip = rng.random(dup.shape) < noise
    dup[flip] = (dup[flip] + rng.integers(1, n_classes, int(flip.sum()))) % n_classes
    return np.concatenate([preds, dup], axis=1), best


def decorrelate(y: np.ndarray, column: np.ndarray, halves: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """A member's predictions moved to random other rows of the same class within each half: its per-class accuracy
    and confusion on each half are kept exactly, its errors become independent of every other member's."""
    out = column.copy()
    for rows in halves:
        for c in np.unique(y[rows]):
            same = rows[y[rows] == c]
            out[same] = column[rng.permutation(same)]
    return out


def run_control(cfg, members: list[str], y: np.ndarray, preds: np.ndarray, cal: np.ndarray, test: np.ndarray,
                n_classes: int, rng: np.random.Generator) -> pd.DataFrame:
    """Positive control on one calibration/test split. The pool: every real member, `copies` noisy copies of the
    calibration-best member A (top-k's sets at budgets 1..copies+1 are A and its copies: A's accuracy), and `diverse`
    decorrelated members (the most accurate real members at least `diverse_gap` below A on calibration, each moved
    to random rows of the same class: they rank below the copies, and with A they form a set that beats A by a known
    amount, `planted_set_gain`). Greedy-MI and top-k over budgets 1..max_budget, judged like the real pool."""
    ctl, alpha = cfg.control, float(cfg.selection.alpha)
    order = np.concatenate([cal, test])
    yo, halves = y[order], [np.arange(len(cal)), np.arange(len(cal), len(order))]
    planted, best = plant_copies(y[cal], preds[order], n_classes, int(ctl.copies), float(ctl.noise), rng)
    acc = (preds[cal] == y[cal, None]).mean(0)
    sources = [int(m) for m in np.argsort(-acc, kind="stable") if acc[m] <= acc[best] - float(ctl.diverse_gap)]
    sources = sources[: int(ctl.diverse)]
    shuffled = [decorrelate(yo, preds[order, m], halves, rng) for m in sources]
    pool = np.column_stack([planted, *shuffled]) if shuffled else planted
    names = (members + [f"{members[best]}_copy{i}" for i in range(int(ctl.copies))]
             + [f"{members[m]}_shuffled" for m in sources])
    pc, pt = pool[: len(cal)], pool[len(cal):]
    picks = selections(y[cal], pc, n_classes, cfg, rng, ("greedy_mi", "top_k"), int(ctl.max_budget))
    dup = pd.DataFrame(evaluate(picks, (y[cal], pc), (y[test], pt), n_classes, alpha))
    dup["picks"] = dup.picks.map(lambda p: p if p == "all" else " ".join(names[int(i)] for i in p.split()))
    known = [best] + list(range(planted.shape[1], pool.shape[1]))  # A with the decorrelated members
    agg = PatternAggregator(n_classes, alpha).fit(y[cal], pc[:, known])
    gain = float((agg.predict(pt[:, known]) == y[test]).mean() - (pt[:, best] == y[test]).mean())
    return dup.assign(anchor=members[best], planted_set_gain=gain)


def decorrelated_pool(y: np.ndarray, preds: np.ndarray, halves: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """Every member decorrelated (`decorrelate`): the same members, per-class accuracies and confusions on each half,
    with errors independent of each other: the plateau the pool would reach without correlated errors."""
    return np.column_stack([decorrelate(y, preds[:, m], halves, rng) for m in range(preds.shape[1])])


def full_pool_accuracy(cal, test, n_classes: int, alpha: float) -> float:
    """Test accuracy of the aggregator (fit on calibration) over every member: where every curve to the full pool ends."""
    (yc, pc), (yt, pt) = cal, test
    return float((PatternAggregator(n_classes, alpha).fit(yc, pc).predict(pt) == yt).mean())


def copula_rows(cfg, task: str, y_cal: np.ndarray, p_cal: np.ndarray, n_classes: int,
                rng: np.random.Generator) -> list[dict]:
    """The copula fitted to one calibration half and the full-pool plateau it predicts (task `<task>_copula`), and the
    same fit with every rho set to 0 (`<task>_copula_indep`: no floor, the floor claim's negative control)."""
    f = cfg.copula_fit
    pool = copula_fit.fit(y_cal, p_cal, n_classes, float(f.cut))
    rows = []
    for name, independent in ((f"{task}_copula", False), (f"{task}_copula_indep", True)):
        acc = copula_fit.predicted_plateau(pool, len(y_cal), int(f.n_test), float(cfg.selection.alpha), rng,
                                           independent)
        rows.append({"task": name, "method": "full_pool", "budget": pool.size, "accuracy": acc, "picks": "all",
                     "clusters": int(pool.cluster.max()) + 1, "largest_rho": float(pool.rho.max()),
                     "mean_pair_rho": float(np.mean([pool.rho[pool.cluster[i]] if pool.cluster[i] == pool.cluster[j]
                                                     else 0.0 for i in range(pool.size)
                                                     for j in range(i + 1, pool.size)]))})
    return rows


def pool_models(cfg, members: list[str]) -> dict[str, list[int]]:
    """The member indices of each hub LLM of the paper's pool (config llm_pool, when enabled), by model key: its members
    are named `<key>_<prefix>_<suffix>` (llm.llm_members)."""
    if not cfg.get("llm_pool", {}).get("enabled", False):
        return {}
    keys = sorted(cfg.llm_pool.models, key=len, reverse=True)  # the longest key first: a key may begin another
    models: dict[str, list[int]] = {}
    for i, name in enumerate(members):
        key = next((k for k in keys if name.startswith(f"{k}_")), None)
        if key is not None:
            models.setdefault(key, []).append(i)
    return models


def pair_correlations(y: np.ndarray, preds: np.ndarray, models: dict[str, list[int]]) -> dict[str, float]:
    """Mean tetrachoric correlation of error indicators (copula_fit.pair_rho) over pairs of members of different
    models (`cross_model`: the claim) and over pairs of one model's prompts (`within_model`: near copies)."""
    errors = (preds != y[:, None]).astype(float)
    eps, both = errors.mean(0), errors.T @ errors / len(y)
    owner = {i: key for key, idx in models.items() for i in idx}
    index = sorted(owner)
    pairs = {"cross_model": [], "within_model": []}
    for a, i in enumerate(index):
        for j in index[a + 1:]:
            kind = "within_model" if owner[i] == owner[j] else "cross_model"
            pairs[kind].append(copula_fit.pair_rho(eps[i], eps[j], both[i, j]))
    return {kind: float(np.mean(v)) if v else float("nan") for kind, v in pairs.items()}


def llm_correlation_rows(y: np.ndarray, preds: np.ndarray, models: dict[str, list[int]], free: np.ndarray) -> list[dict]:
    """Task `<task>_llm_corr` on one calibration half: the pool's cross- and within-model error correlations, and the
    cross-model correlation of the same members decorrelated (`free`: errors independent, the negative control)."""
    observed = pair_correlations(y, preds, models)
    rows = [{"method": kind, "mean_pair_rho": value, "budget": len(models)} for kind, value in observed.items()]
    rows.append({"method": "cross_model_indep", "mean_pair_rho": pair_correlations(y, free, models)["cross_model"],
                 "budget": len(models)})
    return rows


def split_rows(n: int, power_fraction: float, splits: int, rng: np.random.Generator):
    """The power split (a fixed share of the pool, drawn once per seed, never used to judge) and `splits` random
    calibration/test halves of the rest: (power rows, [(cal, test), ...])."""
    order = rng.permutation(n)
    n_power = int(round(power_fraction * n))
    power, rest = order[:n_power], order[n_power:]
    halves = []
    for _ in range(splits):
        perm = rng.permutation(rest)
        halves.append((perm[: len(perm) // 2], perm[len(perm) // 2:]))
    return power, halves


def run_real(cfg, task: str, predictions: pd.DataFrame, seed: int) -> pd.DataFrame:
    """A cached real pool, per seed: a power split held out once (`evaluation.power_fraction`) and random
    calibration/test halves of the rest (`evaluation.splits`). On each half every method over budgets 1..M (judged on
    the test half); task `<task>_power`: the `oracle` (forward selection by accuracy on the power split; it peeks, so
    it is no method and no baseline) and top-k, both judged on the power split: the pool's headroom, measured where
    nothing is judged; task `<task>_indep`: greedy-MI and top-k on the pool with every member decorrelated (errors made
    independent), and `<task>_indep2`: the full-pool accuracy of a second decorrelated draw (the saturation claim's
    reference and its negative control); task `<task>_dup`: the positive control of the top-k claim (`run_control`)."""
    rng = np.random.default_rng(seed)
    members = [c for c in predictions.columns if c not in ("row", "y")]
    y = predictions.y.to_numpy(dtype=np.int64)
    preds = predictions[members].to_numpy(dtype=np.int64)
    n_classes = int(max(y.max(), preds.max()) + 1)
    alpha, ev = float(cfg.selection.alpha), cfg.evaluation
    models = pool_models(cfg, members)
    power, splits = split_rows(len(y), float(ev.power_fraction), int(ev.splits), rng)
    frames = []
    for split, (cal, test) in enumerate(splits):
        c, t = (y[cal], preds[cal]), (y[test], preds[test])
        picks = selections(*c, n_classes, cfg, rng)
        frames.append(pd.DataFrame(evaluate(picks, c, t, n_classes, alpha)).assign(split=split, task=task))
        budget = min(int(ev.oracle_budget), len(members))
        head = {"oracle": baselines.oracle_forward(c, (y[power], preds[power]), n_classes, budget, alpha),
                "top_k": picks["top_k"][:budget]}
        frames.append(pd.DataFrame(evaluate(head, c, (y[power], preds[power]), n_classes, alpha)).assign(
            split=split, task=f"{task}_power"))
        order = np.concatenate([cal, test])
        halves = [np.arange(len(cal)), np.arange(len(cal), len(order))]
        for name, methods in ((f"{task}_indep", ("greedy_mi", "top_k")), (f"{task}_indep2", ())):
            free = decorrelated_pool(y[order], preds[order], halves, rng)
            fc, ft = (y[cal], free[: len(cal)]), (y[test], free[len(cal):])
            rows = evaluate(selections(*fc, n_classes, cfg, rng, methods), fc, ft, n_classes, alpha) if methods else []
            rows.append({"method": "full_pool", "budget": len(members),
                         "accuracy": full_pool_accuracy(fc, ft, n_classes, alpha), "picks": "all"})
            frames.append(pd.DataFrame(rows).assign(split=split, task=name))
        frames.append(pd.DataFrame(copula_rows(cfg, task, *c, n_classes, rng)).assign(split=split))
        if len(models) >= 2:  # the paper's LLM pool is among the members (scale=paper)
            free = decorrelated_pool(y[cal], preds[cal], [np.arange(len(cal))], rng)
            frames.append(pd.DataFrame(llm_correlation_rows(y[cal], preds[cal], models, free)).assign(
                split=split, task=f"{task}_llm_corr"))
        frames.append(run_control(cfg, members, y, preds, cal, test, n_classes, rng).assign(split=split,
                                                                                             task=f"{task}_dup"))
    out = pd.concat(frames, ignore_index=True).assign(seed=seed, kind="selection")
    named = out.task.isin([task, f"{task}_power"])
    out.loc[named, "picks"] = out.loc[named, "picks"].map(
        lambda p: p if p == "all" else " ".join(members[int(i)] for i in p.split()))
    return out


def run_floor(cfg, seed: int) -> pd.DataFrame:
    """Plurality-vote floor vs correlation: closed form and simulation (common random numbers over rho); K = 2 exact
    information of M votes, the information ceiling and its Fano floor."""
    f = cfg.floor
    rows = []
    for k in f.classes:
        for eps in f.eps:
            for rho in f.rho:
                rows.append({"kind": "vote", "classes": int(k), "eps": float(eps), "rho": float(rho),
                             "closed_form": float(copula.vote_floor(eps, rho, int(k))),
                             "simulated": copula.simulated_vote_error(float(eps), float(rho), int(f.models), int(k),
                                                                      seed, int(f.n))})
    for eps in f.eps:
        for rho in f.rho:
            ceiling = copula.binary_information_ceiling(float(eps), float(rho))
            for m in f.fano_models:
                info, bayes = copula.binary_count_information(float(eps), float(rho), int(m))
                rows.append({"kind": "information", "classes": 2, "eps": float(eps), "rho": float(rho), "models": int(m),
                             "information": info, "bayes_error": bayes, "ceiling": ceiling,
                             "fano_floor": copula.fano_floor(ceiling),
                             "closed_form": float(copula.vote_floor(eps, rho, 2))})
    return pd.DataFrame(rows).assign(seed=seed)

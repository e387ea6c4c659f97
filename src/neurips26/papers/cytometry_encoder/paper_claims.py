"""The paper's four claims, measured from tables/tasks.csv, tables/scaling.csv, tables/removal.csv and
tables/control_null.csv, plus the design's positive control (pretraining must help on the cross-study task) and the
pretraining convergence check (tables/pretrain_loss.csv); thresholds come from the config's `claims`. Claims 1 and 3
(matches_specialists, scaling_saturates) read their quantities per seed (tables/tasks_seeds.csv,
tables/scaling_seeds.csv) and are three-valued over the seed intervals (README: fifth change): holds / fails only when
the criterion holds / fails over the whole interval, otherwise null, inconclusive at this scale."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.claims import Claim, PositiveControl, interval_verdict, seed_interval

NOVEL = "novel_panel"


def _auroc(tasks: pd.DataFrame, task: str, method: str) -> float:
    rows = tasks[(tasks.task == task) & (tasks.method == method)]
    return float(rows.auroc.iloc[0]) if len(rows) else float("nan")


def _gains(scaling: pd.DataFrame, sweep: str) -> tuple[float, float]:
    curve = scaling[(scaling.sweep == sweep) & (scaling.task == "mean_signal")].sort_values("x").auroc.to_numpy()
    if len(curve) < 3:
        return float("nan"), float("nan")
    return float(curve[1] - curve[0]), float(curve[-1] - curve[-2])


def _bounded(name: str, per_seed: pd.Series, level: float) -> dict:
    """name: the seed mean; name_lo, name_hi: its two-sided t interval (NaN with one seed)."""
    mean, lo, hi = seed_interval(per_seed.to_numpy(), level)
    return {name: mean, f"{name}_lo": lo, f"{name}_hi": hi}


def _per_seed(seeds: pd.DataFrame, task: str, method: str) -> pd.Series:
    rows = seeds[(seeds.task == task) & (seeds.method == method)]
    return rows.set_index("seed").auroc


def saturation_per_seed(scaling_seeds: pd.DataFrame, sweep: str, ratio: float) -> pd.Series:
    """Per seed, ratio x the first doubling's gain - the last doubling's gain of the signal-task mean AUROC curve
    (positive: the curve saturates); NaN-free and empty when the sweep has fewer than three points."""
    rows = scaling_seeds[(scaling_seeds.sweep == sweep) & (scaling_seeds.task == "mean_signal")]
    out = {}
    for seed, curve in rows.groupby("seed"):
        c = curve.sort_values("x").auroc.to_numpy()
        if len(c) >= 3:
            out[seed] = ratio * (c[1] - c[0]) - (c[-1] - c[-2])
    return pd.Series(out, dtype=float)


def _undecided(names: dict[str, float], measured: dict, seeds: int) -> str:
    """why_untested of a null three-valued verdict: the quantities whose seed interval straddles their threshold."""
    if seeds < 2 or any(measured[f"{n}_lo"] != measured[f"{n}_lo"] for n in names):
        return f"the seed interval is undefined with {seeds} seed(s): the three-valued verdict needs at least two"
    straddle = [f"{n} [{measured[f'{n}_lo']:.3f}, {measured[f'{n}_hi']:.3f}] (threshold {t:g})"
                for n, t in names.items() if measured[f"{n}_lo"] < t <= measured[f"{n}_hi"]
                or measured[f"{n}_lo"] <= t < measured[f"{n}_hi"]]
    return "inconclusive at this scale: the seed interval of " + ", ".join(straddle) + " straddles the criterion"


def null_quantiles(null: pd.DataFrame) -> dict:
    values = null[null.kind == "permuted"].auroc.to_numpy()
    if not len(values):
        return {"null_mean": float("nan"), "null_q025": float("nan"), "null_q975": float("nan")}
    return {"null_mean": float(values.mean()), "null_q025": float(np.quantile(values, 0.025)),
            "null_q975": float(np.quantile(values, 0.975)), "null_permutations": len(values)}


def convergence(losses: pd.DataFrame, window: float, tolerance: float) -> dict:
    """Per sweep point: the convergence rule on the seed-mean loss curve, and end loss / sample-mean reference."""
    from neurips26.papers.cytometry_encoder.pretrain import converged

    out = {}
    for variant, rows in losses.groupby("variant", sort=False):
        holds, improvement = converged(rows.sort_values("step").loss.to_numpy(), window, tolerance)
        tail = rows.sort_values("step").tail(max(1, int(round(window * len(rows)))))
        out[f"converged_{variant}"] = holds
        out[f"last_window_improvement_{variant}"] = improvement
        out[f"loss_over_reference_{variant}"] = float(tail.loss.mean() / tail.reference.mean())
    return out


def build(tasks: pd.DataFrame, scaling: pd.DataFrame, removal: pd.DataFrame, control_null: pd.DataFrame,
          pretrain_loss: pd.DataFrame, tasks_seeds: pd.DataFrame, scaling_seeds: pd.DataFrame,
          cfg) -> tuple[list[Claim], dict]:
    c = cfg.claims
    level = float(c.get("seed_interval", 0.95))
    taxonomy = tasks.drop_duplicates("task").set_index("task").taxonomy
    names = [t for t in dict.fromkeys(tasks.task) if taxonomy[t] != "positive_control"]
    novel = [t for t in names if str(taxonomy[t]).startswith(NOVEL)]
    floor = -float(c.specialist_margin)
    m, counts = {}, {}
    for t in names:  # per seed frozen - specialist, paired on the seed
        m.update(_bounded(f"frozen_minus_specialist_{t}", _per_seed(tasks_seeds, t, "frozen")
                          - _per_seed(tasks_seeds, t, "specialist"), level))
    n_seeds = int(tasks_seeds[tasks_seeds.method == "frozen"].seed.nunique())
    for bound in ("", "_lo", "_hi"):  # tasks matched by the seed means, by the lower bounds, by the upper bounds
        value = {t: m[f"frozen_minus_specialist_{t}{bound}"] for t in names}
        undefined = any(v != v for v in value.values())
        counts[f"tasks_matched{bound}"] = float("nan") if undefined else sum(v >= floor for v in value.values())
        counts[f"novel_tasks_matched{bound}"] = (float("nan") if undefined
                                                 else sum(value[t] >= floor for t in novel))
    m.update(counts)
    m["novel_tasks"] = len(novel)
    m["seeds"] = n_seeds
    criterion = f"tasks_matched_lo >= {c.min_tasks_matched} and novel_tasks_matched_lo == novel_tasks"
    verdict = interval_verdict(criterion, m)
    specialists = Claim(
        "matches_specialists",
        f"the frozen encoder's AUROC is >= the in-distribution specialist's - {c.specialist_margin} on >= "
        f"{c.min_tasks_matched} of {len(names)} tasks, including every novel-panel task. Three-valued over seeds: per "
        f"task the per-seed frozen - specialist AUROC (paired on the seed), its mean and {level:.0%} t interval; holds "
        "if the criterion holds with every task at its interval's lower bound, fails if it fails with every task at "
        "its upper bound, otherwise inconclusive",
        criterion, m, ["tables/tasks.csv", "tables/tasks_seeds.csv", "figures/task_auroc.png", "tables/panels.csv"],
        why_untested=None if verdict is not None else _undecided(
            {f"frozen_minus_specialist_{t}": floor for t in names}, m, n_seeds))

    control = [t for t in names if taxonomy[t] == "negative_control"]
    null = null_quantiles(control_null)
    n = {"control_auroc": _auroc(tasks, control[0], "frozen") if control else float("nan"), **null,
         "control_specialist_auroc": _auroc(tasks, control[0], "specialist") if control else float("nan")}
    fresh = control_null[control_null.kind == "fresh"].auroc
    negative = Claim("negative_control",
                     "the negative control (labels independent of the data) behaves as expected: its cross-validated "
                     "AUROC lies in the central 95 % of the same AUROC under label permutation (the null, "
                     f"{int(cfg.permutation_null.permutations)} relabellings; CV AUROC on null labels is biased below 0.5)",
                     "null_q025 <= control_auroc <= null_q975", n,
                     ["tables/tasks.csv", "tables/control_null.csv", "figures/control_null.png"],
                     positive_control=PositiveControl(
                         "a fresh random relabelling of the control task (held out of the null): a null draw by "
                         "construction", {"control_auroc": float(fresh.iloc[0]) if len(fresh) else float("nan"),
                                          "null_q025": null["null_q025"], "null_q975": null["null_q975"]}))

    s = {}
    ratio = float(c.saturation_ratio)
    for sweep in ("capacity", "corpus"):
        s[f"{sweep}_first_gain"], s[f"{sweep}_last_gain"] = _gains(scaling, sweep)
    for sweep in ("capacity", "corpus"):
        s.update(_bounded(f"{sweep}_saturation", saturation_per_seed(scaling_seeds, sweep, ratio), level))
    s["seeds"] = int(scaling_seeds.seed.nunique()) if len(scaling_seeds) else 0
    criterion = "capacity_saturation_lo > 0 and corpus_saturation_lo > 0"
    verdict = interval_verdict(criterion, s)
    short = not all(v == v for k, v in s.items() if k.endswith("_gain"))
    saturation = Claim(
        "scaling_saturates",
        "capacity and random corpus subsampling curves saturate: the last doubling gains less than "
        f"{ratio:.3g} x the first (mean frozen AUROC over the signal tasks). Three-valued over seeds: per sweep the "
        f"per-seed saturation margin {ratio:.3g} x first gain - last gain (> 0: saturates), its mean and {level:.0%} t "
        "interval; holds if both intervals lie above 0, fails if either lies at or below 0, otherwise inconclusive",
        criterion, s, ["tables/scaling.csv", "tables/scaling_seeds.csv", "figures/scaling_capacity.png",
                       "figures/scaling_corpus.png"],
        why_untested="a sweep has fewer than three points (tiny scale)" if short else None if verdict is not None
        else _undecided({"capacity_saturation": 0.0, "corpus_saturation": 0.0}, s, s["seeds"]))

    median = removal[removal.task == "median_signal"].sort_values("removed")
    r = {"max_median_step_drop": float(median.drop_from_previous.max()),
         "auroc_all_markers": float(median.auroc.iloc[0]), "auroc_most_removed": float(median.auroc.iloc[-1]),
         "markers_removed": int(median.removed.max())}
    graceful = Claim("graceful_marker_removal",
                     f"removing markers at test time lowers AUROC gradually: no removal step drops the median over the "
                     f"signal tasks by more than {c.max_removal_drop}",
                     f"max_median_step_drop <= {c.max_removal_drop}", r,
                     ["tables/removal.csv", "figures/marker_removal.png"])
    positive = [t for t in dict.fromkeys(tasks.task) if taxonomy[t] == "positive_control"]
    p = {}
    if positive:
        t = positive[0]
        avg = tasks[(tasks.task == t) & (tasks.method == "random_init_avg")]
        inits = int(cfg.get("baselines", {}).get("random_inits", 1)) if len(avg) else 1
        p = {"frozen_auroc": _auroc(tasks, t, "frozen"),
             # the reference: the mean over seeds x `inits` random initialisations (one init: the random-init column)
             "random_init_auroc": _auroc(tasks, t, "random_init_avg" if len(avg) else "random_init"),
             "random_init_sd": float(avg.auroc_std.iloc[0]) if len(avg) and "auroc_std" in avg else float("nan"),
             "random_inits": inits, "single_init_auroc": _auroc(tasks, t, "random_init"),
             "true_frequency_ceiling": _auroc(tasks, t, "true_frequencies"),
             "shared_marker_quantiles_auroc": _auroc(tasks, t, "quantiles")}  # (no specialist: none is trained)
        p["frozen_minus_random_init"] = p["frozen_auroc"] - p["random_init_auroc"]
    helps = Claim(
        "pretraining_helps_cross_study",
        "positive control of the design: on a task whose label moves population frequencies only and whose studies "
        "each have their own panel (a small shared core), the corpus-pretrained frozen encoder beats the same encoder "
        f"untrained (mean over random initialisations) by >= {c.positive_control_gain} AUROC",
        f"frozen_minus_random_init >= {c.positive_control_gain}", p or {"frozen_minus_random_init": float("nan")},
        ["tables/tasks.csv", "figures/task_auroc.png"], source="brief",
        why_untested=None if positive else "no positive_control task configured")
    claims = [specialists, negative, saturation, graceful, helps]
    metrics = {claim.id: {k: float(v) for k, v in claim.measured.items()} for claim in claims}
    metrics["pretraining_convergence"] = convergence(pretrain_loss, float(cfg.pretrain.convergence.window),
                                                     float(cfg.pretrain.convergence.tolerance))
    return claims, metrics

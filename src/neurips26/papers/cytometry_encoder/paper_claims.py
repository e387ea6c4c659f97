"""The paper's four claims, measured from tables/tasks.csv, tables/scaling.csv, tables/removal.csv and
tables/control_null.csv, plus the design's positive control (pretraining must help on the cross-study task) and the
pretraining convergence check (tables/pretrain_loss.csv); thresholds come from the config's `claims`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.claims import Claim, PositiveControl

NOVEL = "novel_panel"


def _auroc(tasks: pd.DataFrame, task: str, method: str) -> float:
    rows = tasks[(tasks.task == task) & (tasks.method == method)]
    return float(rows.auroc.iloc[0]) if len(rows) else float("nan")


def _gains(scaling: pd.DataFrame, sweep: str) -> tuple[float, float]:
    curve = scaling[(scaling.sweep == sweep) & (scaling.task == "mean_signal")].sort_values("x").auroc.to_numpy()
    if len(curve) < 3:
        return float("nan"), float("nan")
    return float(curve[1] - curve[0]), float(curve[-1] - curve[-2])


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
          pretrain_loss: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    c = cfg.claims
    taxonomy = tasks.drop_duplicates("task").set_index("task").taxonomy
    names = [t for t in dict.fromkeys(tasks.task) if taxonomy[t] != "positive_control"]
    margin = {t: _auroc(tasks, t, "frozen") - _auroc(tasks, t, "specialist") for t in names}
    matched = {t: m >= -float(c.specialist_margin) for t, m in margin.items()}
    novel = [t for t in names if str(taxonomy[t]).startswith(NOVEL)]
    m = {f"frozen_minus_specialist_{t}": v for t, v in margin.items()}
    m.update({"tasks_matched": sum(matched.values()), "novel_tasks_matched": sum(matched[t] for t in novel),
              "novel_tasks": len(novel)})
    specialists = Claim(
        "matches_specialists",
        f"the frozen encoder's AUROC is >= the in-distribution specialist's - {c.specialist_margin} on >= "
        f"{c.min_tasks_matched} of {len(names)} tasks, including every novel-panel task",
        f"tasks_matched >= {c.min_tasks_matched} and novel_tasks_matched == novel_tasks", m,
        ["tables/tasks.csv", "figures/task_auroc.png", "tables/panels.csv"])

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
    for sweep in ("capacity", "corpus"):
        s[f"{sweep}_first_gain"], s[f"{sweep}_last_gain"] = _gains(scaling, sweep)
    ratio = float(c.saturation_ratio)
    saturation = Claim(
        "scaling_saturates",
        "capacity and random corpus subsampling curves saturate: the last doubling gains less than "
        f"{ratio:.3g} x the first (mean frozen AUROC over the signal tasks)",
        f"capacity_last_gain < {ratio} * capacity_first_gain and corpus_last_gain < {ratio} * corpus_first_gain", s,
        ["tables/scaling.csv", "figures/scaling_capacity.png", "figures/scaling_corpus.png"],
        why_untested=None if all(v == v for v in s.values()) else "a sweep has fewer than three points (tiny scale)")

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

"""The paper's four claims, measured from tables/tasks.csv, tables/scaling.csv and tables/removal.csv; thresholds come
from the config's `claims` (fixed before any result was seen)."""

from __future__ import annotations

import pandas as pd

from neurips26.common.claims import Claim

NOVEL = "novel_panel"


def _auroc(tasks: pd.DataFrame, task: str, method: str) -> float:
    rows = tasks[(tasks.task == task) & (tasks.method == method)]
    return float(rows.auroc.iloc[0]) if len(rows) else float("nan")


def _gains(scaling: pd.DataFrame, sweep: str) -> tuple[float, float]:
    curve = scaling[(scaling.sweep == sweep) & (scaling.task == "mean_signal")].sort_values("x").auroc.to_numpy()
    if len(curve) < 3:
        return float("nan"), float("nan")
    return float(curve[1] - curve[0]), float(curve[-1] - curve[-2])


def build(tasks: pd.DataFrame, scaling: pd.DataFrame, removal: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    c = cfg.claims
    names = list(dict.fromkeys(tasks.task))
    taxonomy = tasks.drop_duplicates("task").set_index("task").taxonomy
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
    n = {"control_auroc": _auroc(tasks, control[0], "frozen") if control else float("nan"),
         "control_specialist_auroc": _auroc(tasks, control[0], "specialist") if control else float("nan")}
    negative = Claim("negative_control",
                     f"the negative control (labels independent of the data) gives chance AUROC: 0.5 +- "
                     f"{c.control_tolerance}", f"abs(control_auroc - 0.5) <= {c.control_tolerance}", n,
                     ["tables/tasks.csv", "figures/task_auroc.png"])

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
    claims = [specialists, negative, saturation, graceful]
    metrics = {claim.id: {k: float(v) for k, v in claim.measured.items()} for claim in claims}
    return claims, metrics

"""The paper's abstract claims as checkable criteria over the tables (criteria fixed before any default run)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.claims import Claim, PositiveControl, interval_verdict, seed_interval
from neurips26.papers.mental_imagery.tables import FAMILIES

MARGIN = 0.1  # "clearly above" the best image-blind policy: 10 points of solve rate (fixed before the default run)


def _learns(solve: pd.DataFrame) -> Claim:
    s = solve.pivot(index="family", columns="variant", values="solve_rate")
    margins = {f"margin_over_blind_{f}": s.loc[f, "A"] - s.loc[f, "blind"] for f in FAMILIES}
    measured = {"mean_solve_A": s.loc["mean", "A"], "mean_blind": s.loc["mean", "blind"],
                "min_margin_over_blind": min(margins.values()),
                **({"first_action_A": solve.set_index(["family", "variant"]).loc[("mean", "A"), "first_action"],
                    "first_action_majority": solve.set_index(["family", "variant"]).loc[("mean", "blind"),
                                                                                       "first_action"]}
                   if "first_action" in solve else {}),
                **{f"solve_A_{f}": s.loc[f, "A"] for f in FAMILIES}, **margins}
    return Claim(
        "learns_puzzles", "a model trained to output the open-loop action sequence learns the visual puzzles "
        "(actions-only variant A, solve rate by replay on held-out puzzles, against the best image-blind constant "
        "action sequence)", f"mean_solve_A > 0.5 and min_margin_over_blind > {MARGIN}", measured,
        ["tables/solve.csv", "figures/solve_rate_by_task.png"])


def _untrained(pooled: pd.DataFrame) -> pd.Series:
    """The untrained control the claim reads: the stronger of the random model and, with VLM pretraining, the
    pretrained-but-not-fine-tuned model (fixed before the finals of pilot 5)."""
    cols = [k for k in ("untrained", "pretrained") if k in pooled]
    return pooled[cols].max(axis=1)


def _margins(pooled: pd.DataFrame, kind: str, untrained: pd.Series) -> dict:
    return {"min_margin_over_copy": (pooled[kind] - pooled["copy"]).min(),
            "min_margin_over_untrained": (pooled[kind] - untrained).min(),
            "min_margin_over_start_only": (pooled[kind] - pooled["start_only"]).min()}


def _seed_bounds(seeds: pd.DataFrame, variant: str, kind: str, level: float) -> dict:
    """min_margin_over_{copy,untrained,start_only}_{lo,hi}: per family, `kind`'s probe accuracy minus the baseline on
    each seed (paired on the seed), its two-sided t interval over seeds; the smallest lower bound and the smallest upper
    bound over the families (NaN when a family has fewer than two seeds)."""
    g = seeds[seeds["variant"] == variant].pivot_table(index=["family", "seed"], columns="kind", values="acc")
    if kind not in g:
        return {}
    out = {}
    for name, base in (("copy", g["copy"]), ("untrained", _untrained(g)), ("start_only", g["start_only"])):
        bounds = [seed_interval(d.to_numpy(), level)[1:] for _, d in (g[kind] - base).groupby(level="family")]
        out[f"min_margin_over_{name}_lo"] = float(np.min([b[0] for b in bounds]))
        out[f"min_margin_over_{name}_hi"] = float(np.min([b[1] for b in bounds]))
    return out


def _probes(probe: pd.DataFrame, seeds: pd.DataFrame, level: float) -> Claim:
    pooled_of = {v: g.pivot(index="family", columns="kind", values="acc")
                 for v, g in probe[probe["step"] == 0].groupby("variant")}
    pooled = pooled_of["A"]
    measured = {**_margins(pooled, "trained", _untrained(pooled)), **_seed_bounds(seeds, "A", "trained", level)}
    for kind in ("trained", "copy", "untrained", "pretrained", "shuffled", "start_only"):
        if kind in pooled:
            measured.update({f"{kind}_{f}": pooled.loc[f, kind] for f in FAMILIES})
    measured["seeds"] = int(seeds[seeds["variant"] == "A"]["seed"].nunique())
    setting = ("the same probe on a d-dimensional representation that holds the board by construction: [s_0, a fixed "
               "random Gaussian linear code of the true s_t] with as many numbers as h_t (pilot 5's rule)")
    control = None
    if "random_code" in pooled:
        control = PositiveControl(setting, {**_margins(pooled, "random_code", _untrained(pooled)),
                                            **_seed_bounds(seeds, "A", "random_code", level)})
    criterion = ("min_margin_over_copy_lo > 0 and min_margin_over_untrained_lo > 0 and "
                 "min_margin_over_start_only_lo > 0")
    verdict = interval_verdict(criterion, measured)
    why = None
    if verdict is None and measured["seeds"] < 2:
        why = f"the seed interval is undefined with {measured['seeds']} seed(s): the verdict needs at least two"
    elif verdict is None:
        straddle = [name for name in ("copy", "untrained", "start_only")
                    if measured[f"min_margin_over_{name}_lo"] <= 0 < measured[f"min_margin_over_{name}_hi"]]
        why = ("inconclusive at this scale: the seed interval of the margin over " + ", ".join(straddle) + " straddles "
               "0 for at least one family")
    return Claim(
        "probes_decode_state", "without visual supervision (variant A), linear probes decode the intermediate board "
        "s_t from the hidden state after action t above the copy-the-start-board baseline and above the same probe on "
        "an untrained model (random, and pretrained but not fine-tuned on actions), for every family (every probe also "
        f"reads the start board). Per family and seed, the probe's accuracy minus each baseline's; the {level:.0%} t "
        "interval over seeds; holds if every family's interval lies above 0 for every baseline, fails if some "
        "family's lies at or below 0, otherwise untested (min_margin_over_*: the same margins of the seed means)",
        criterion, measured, ["tables/probe.csv", "tables/probe_seeds.csv", "figures/probe_acc_vs_step.png",
                              "figures/decoded_states.png"],
        why_untested=why, positive_control=control)


def _budget(solve: pd.DataFrame, cap: int) -> tuple[dict, str | None]:
    """The variant comparisons (B, C against A) are judged only at convergence: when some seed of A, B or C trained to
    the fine-tuning cap (train.max_steps) before the dev-plateau rule fired, their verdict is left untested (decided
    by the session lead after pilot 7's finals, README "The B/C verdicts need converged runs")."""
    steps = solve.drop_duplicates("variant").set_index("variant")
    most = {v: float(steps.loc[v, "steps_max"]) for v in ("A", "B", "C")
            if v in steps.index and "steps_max" in steps}
    capped = [v for v, n in most.items() if n >= cap]
    measured = {"step_cap": cap, **{f"steps_max_{v}": n for v, n in most.items()}}
    why = (f"not testable at this budget: variant(s) {', '.join(capped)} trained to the fine-tuning cap "
           f"(train.max_steps = {cap}) on at least one seed before the dev-plateau rule fired, so the variants are "
           "compared at an equal step budget, not at convergence (the measured values are that comparison)"
           if capped else None)
    return measured, why


def _gains(solve: pd.DataFrame, cap: int) -> Claim:
    s = solve.pivot(index="family", columns="variant", values="solve_rate")
    budget, why = _budget(solve, cap)
    measured = {**{f"mean_{v}": s.loc["mean", v] for v in ["A", "B", "C"]}, **budget}
    return Claim(
        "visual_supervision_or_tokens_help", "explicit visual supervision (B) and explicit visual tokens (C) both raise "
        "the mean solve rate over actions only (A) (paper: 83% -> 89% with 16 visual tokens)",
        "mean_B > mean_A and mean_C > mean_A", measured, ["tables/solve.csv", "figures/solve_rate_by_task.png"],
        why_untested=why)


def _where(solve: pd.DataFrame, cap: int) -> Claim:
    s = solve.pivot(index="family", columns="variant", values="solve_rate")
    budget, why = _budget(solve, cap)
    measured = {**{f"gain_C_{f}": s.loc[f, "C"] - s.loc[f, "A"] for f in FAMILIES}, **budget}
    return Claim(
        "gains_on_jigsaw_rotation", "the visual tokens' largest gains are on jigsaw and 3D mental rotation (paper: > 20 "
        "points each)", "max(gain_C_jigsaw, gain_C_rotation) > max(gain_C_rush_hour, gain_C_sokoban, gain_C_tangram) "
        "and min(gain_C_jigsaw, gain_C_rotation) > 0",
        measured, ["tables/solve.csv", "figures/solve_rate_by_task.png"], why_untested=why)


def _scale() -> Claim:
    return Claim(
        "twelve_tasks_pretrained_vlm", "a pretrained VLM fine-tuned on twelve puzzle tasks reaches 83% (actions only) "
        "and 89% (16 visual tokens) mean solve rate", "mean_A > 0.8", {"mean_A": None}, [],
        why_untested="needs the paper's pretrained multimodal model and twelve task suites on GPUs; the embedded run "
        "trains a tiny VLM from scratch on five families, whose absolute solve rates are not comparable")


def build(solve: pd.DataFrame, probe: pd.DataFrame, probe_seeds: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    cap = int(cfg.train.max_steps)
    claims = [_learns(solve), _probes(probe, probe_seeds, float(cfg.probe.seed_interval)), _gains(solve, cap),
              _where(solve, cap), _scale()]
    metrics = {f"{c.id}.{k}": v for c in claims for k, v in c.to_json()["measured"].items()}
    metrics.update({f"{c.id}.holds": c.to_json()["holds"] for c in claims})
    return claims, metrics

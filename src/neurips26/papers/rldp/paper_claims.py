"""The abstract's claims as criteria over the tables (thresholds from the brief, fixed before any result was seen)."""

from __future__ import annotations

import pandas as pd

from neurips26.common.claims import Claim, PositiveControl

TRUTH = "a router given the true difficulty level (ties broken at random) in place of RLDP"


def _mean(main: pd.DataFrame, router: str, col: str) -> float:
    return float(main.loc[main.router == router, col].mean())


def _encodes(main: pd.DataFrame) -> Claim:
    return Claim(
        "encodes_difficulty", "hidden activations before reasoning encode difficulty: RLDP from 8 reference problems "
        "(small decoder) ranks problems by difficulty nearly as well as a probe trained on many labelled problems, and "
        "better than prompt length", "rldp_spearman >= 0.8 * probe_spearman and rldp_spearman > length_spearman",
        {"rldp_spearman": _mean(main, "rldp", "spearman_steps"), "probe_spearman": _mean(main, "probe", "spearman_steps"),
         "length_spearman": _mean(main, "length", "spearman_steps"),
         "rollout_spearman": _mean(main, "rollout", "spearman_steps"),
         "rldp_spearman_min_seed": float(main.loc[main.router == "rldp", "spearman_steps"].min())},
        ["tables/main.csv", "figures/score_vs_difficulty.png", "figures/layerwise_auroc.png"],
        positive_control=PositiveControl(TRUTH, {
            "rldp_spearman": _mean(main, "truth", "spearman_steps"),
            "probe_spearman": _mean(main, "probe", "spearman_steps"),
            "length_spearman": _mean(main, "length", "spearman_steps")}))


def _encodes_llm(llm: pd.DataFrame) -> Claim:
    s = llm.set_index("router")
    return Claim(
        "encodes_difficulty_llm", "the same on a real pretrained model (SmolLM2-135M, MMLU mathematics, difficulty proxy "
        "= grade level): RLDP from 8 references >= 0.8x the trained probe's Spearman and above prompt length's",
        "rldp_spearman >= 0.8 * probe_spearman and rldp_spearman > length_spearman",
        {"rldp_spearman": s.loc["rldp", "spearman"], "probe_spearman": s.loc["probe", "spearman"],
         "length_spearman": s.loc["length", "spearman"], "rldp_auroc_college_vs_elementary": s.loc["rldp", "auroc"]},
        ["tables/llm.csv", "figures/layerwise_auroc.png"],
        positive_control=PositiveControl("a router given the grade level (ties broken at random) in place of RLDP", {
            "rldp_spearman": s.loc["truth", "spearman"], "probe_spearman": s.loc["probe", "spearman"],
            "length_spearman": s.loc["length", "spearman"]}) if "truth" in s.index else None)


def _wall(main: pd.DataFrame, timing: pd.DataFrame, router: str, overhead: str | None, plain: bool) -> float:
    t = timing.set_index("part").seconds_per_1000
    f = _mean(main, router, "think_fraction_at_target")
    return (t[overhead] if overhead else 0.0) + f * t["think"] + ((1 - f) * t["nothink"] if plain else 0.0)


def _adaswitch(main: pd.DataFrame) -> Claim:
    return Claim(
        "adaswitch_reaches_think", "AdaSwitch (RLDP-routed) reaches the always-think accuracy within 1 point at a lower "
        "cost in generated tokens", "rldp_tokens < always_think_tokens",
        {"rldp_tokens": _mean(main, "rldp", "tokens_at_target"),
         "always_think_tokens": _mean(main, "always_think", "tokens_at_target"),
         "always_think_accuracy": _mean(main, "always_think", "accuracy_at_target"),
         "never_think_accuracy": _mean(main, "never_think", "accuracy_at_target"),
         "rldp_accuracy": _mean(main, "rldp", "accuracy_at_target"),
         "rldp_think_fraction": _mean(main, "rldp", "think_fraction_at_target")},
        ["tables/main.csv", "figures/accuracy_cost_frontier.png"],
        positive_control=PositiveControl(TRUTH, {
            "rldp_tokens": _mean(main, "truth", "tokens_at_target"),
            "always_think_tokens": _mean(main, "always_think", "tokens_at_target")}))


def _efficiency(main: pd.DataFrame, timing: pd.DataFrame) -> Claim:
    rldp, rollout, probe, truth = (_mean(main, r, "tokens_at_target") for r in ("rldp", "rollout", "probe", "truth"))
    return Claim(
        "efficiency_vs_rollout", "AdaSwitch is >= 1.3x as efficient as rollout-based routing at the always-think "
        "accuracy (the paper: 1.34-2.00x; cost = generated tokens incl. rollouts) while matching the trained probe "
        "(within 10% of its tokens)", "efficiency_tokens >= 1.3 and rldp_tokens <= 1.1 * probe_tokens",
        {"efficiency_tokens": rollout / rldp, "rldp_tokens": rldp, "rollout_tokens": rollout, "probe_tokens": probe,
         "oracle_tokens": _mean(main, "oracle", "tokens_at_target"),
         "efficiency_wall_time": _wall(main, timing, "rollout", "rollouts", False)
         / _wall(main, timing, "rldp", "rldp_forward", True)},
        ["tables/main.csv", "tables/timing.csv", "figures/accuracy_cost_frontier.png"],
        positive_control=PositiveControl(TRUTH, {
            "efficiency_tokens": rollout / truth, "rldp_tokens": truth, "probe_tokens": probe}))


def build(main: pd.DataFrame, llm: pd.DataFrame, timing: pd.DataFrame) -> tuple[list[Claim], dict]:
    claims = [_encodes(main), _encodes_llm(llm), _adaswitch(main), _efficiency(main, timing)]
    metrics = {f"{c.id}.{k}": v for c in claims for k, v in c.to_json()["measured"].items()}
    metrics.update({f"{c.id}.holds": c.to_json()["holds"] for c in claims})
    return claims, metrics

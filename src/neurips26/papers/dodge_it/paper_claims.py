"""The abstract's claims as criteria over the tables (criteria fixed from the brief before the configured seeds ran).

Rates are in percentage points over all held-out episodes of all configured seeds (both levels pooled unless named)."""

from __future__ import annotations

import pandas as pd

from neurips26.common.claims import Claim, PositiveControl

# "preserving task completion": SR may not fall by more than 5 points (one-sided; the first, two-sided draft
# abs(sr_dodge - sr_success) <= 5 failed its own positive control, where the avoider is *better* than the blind expert)
DODGE = "car_dodge - car_success >= 15 and sr_dodge - sr_success >= -5"
CBF = ("car_cbf_II - car_bc_II >= 15 and (sr_dodge_II - sr_cbf_II >= 5 or "
       "steps_cbf_II / steps_dodge_II >= 1.1)")


def _cell(proxy: pd.DataFrame, method: str, level: str, column: str) -> float:
    row = proxy[(proxy["method"] == method) & (proxy["level"] == level)]
    return float(row[column].iloc[0]) if len(row) else float("nan")


def _dodge_vs_success(proxy: pd.DataFrame) -> Claim:
    def measured(method, reference):
        return {"car_dodge": _cell(proxy, method, "all", "car"), "car_success": _cell(proxy, reference, "all", "car"),
                "sr_dodge": _cell(proxy, method, "all", "sr"), "sr_success": _cell(proxy, reference, "all", "sr")}

    return Claim(
        "dodge_vs_success_rl", "using TRACE's collision outcomes as RL feedback (DODGE-IT) improves obstacle avoidance "
        "while preserving task completion, compared with RL on task success alone",
        DODGE, measured("dodge_rl", "success_rl"), ["tables/safelibero_proxy.csv", "figures/sr_car_scatter.png",
                                                    "figures/rl_curves.png", "figures/rollout_frames.png"],
        positive_control=PositiveControl(
            "the scripted avoider (detours around the simulator's obstacle by construction) in place of DODGE-IT, the "
            "obstacle-blind scripted expert in place of success-only RL", measured("avoider", "expert")))


def _cbf(proxy: pd.DataFrame) -> Claim:
    m = {"car_cbf_II": _cell(proxy, "bc_cbf", "II", "car"), "car_bc_II": _cell(proxy, "bc", "II", "car"),
         "sr_cbf_II": _cell(proxy, "bc_cbf", "II", "sr"), "sr_dodge_II": _cell(proxy, "dodge_rl", "II", "sr"),
         "steps_cbf_II": _cell(proxy, "bc_cbf", "II", "steps_success"),
         "steps_dodge_II": _cell(proxy, "dodge_rl", "II", "steps_success"),
         "car_dodge_II": _cell(proxy, "dodge_rl", "II", "car"),
         "sr_pf_II": _cell(proxy, "potential_field", "II", "sr"), "car_pf_II": _cell(proxy, "potential_field", "II", "car")}
    return Claim(
        "safety_filter_costs", "motion planners / safety filters avoid obstacles but may slow, disrupt or fail the task: "
        "the CBF-QP filter raises CAR over BC but, at level II, loses success or adds steps compared with DODGE-IT",
        CBF, m, ["tables/safelibero_proxy.csv", "figures/sr_car_scatter.png"])


def _trace(agreement: pd.DataFrame) -> Claim:
    row = agreement[(agreement["method"] == "all") & (agreement["detector"] == "trace")].iloc[0]
    return Claim(
        "trace_agreement", "TRACE detects task-relevant obstacles from RGB-D and turns executions into collision outcomes "
        "that agree with the simulator's contact ground truth", "precision >= 0.9 and recall >= 0.9",
        {"precision": row["precision"], "recall": row["recall"], "episodes": row["episodes"], "tp": row["tp"],
         "fp": row["fp"], "fn": row["fn"], "relevance_accuracy": row["relevance_accuracy"]},
        ["tables/trace_vs_contacts.csv"])


def _untested() -> Claim:
    return Claim(
        "vla_safelibero_real", "on SafeLIBERO with VLA policies (OpenVLA-OFT) and on real robots DODGE-IT improves "
        "obstacle avoidance while preserving task completion", "car_gain >= 15", {"car_gain": None},
        why_untested="needs the SafeLIBERO/LIBERO assets, a VLA checkpoint and GPU RL (scale: paper, data: real, not "
                     "wired) or a real robot; the embedded run tests the same mechanism with a small MLP policy in a "
                     "MuJoCo tabletop")


def build(proxy: pd.DataFrame, agreement: pd.DataFrame, per_seed: pd.DataFrame) -> tuple[list[Claim], dict]:
    claims = [_dodge_vs_success(proxy), _cbf(proxy), _trace(agreement), _untested()]
    metrics = {f"{c.id}.{k}": v for c in claims for k, v in c.to_json()["measured"].items()}
    metrics.update({f"{c.id}.holds": c.to_json()["holds"] for c in claims})
    for seed, d in per_seed.groupby("seed"):  # the first claim's verdict per seed (stability across seeds)
        claim = _dodge_vs_success(d)
        metrics[f"dodge_vs_success_rl.seed{seed}.holds"] = claim.to_json()["holds"]
        for k, v in claim.measured.items():
            metrics[f"dodge_vs_success_rl.seed{seed}.{k}"] = v
    return claims, metrics

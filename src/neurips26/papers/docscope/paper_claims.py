"""The paper's abstract claims as checkable criteria over the tables (criteria fixed before the default run)."""

from __future__ import annotations

import pandas as pd

from neurips26.common.claims import Claim, PositiveControl


def _row(main, system):
    return main[main["system"] == system].iloc[0]


def _chain_gap(main, system) -> Claim:
    r = _row(main, system)
    others = {
        f"{s}_chain_among_correct": _row(main, s)["chain_among_correct"]
        for s in main["system"]
        if s.startswith(("bm25", "minilm"))
    }
    return Claim(
        "chain_gap", "even among correct answers few have complete evidence chains: the complete-chain rate among correct "
        "answers is below answer accuracy (a large gap)", "chain_among_correct < answer_accuracy",
        {"chain_among_correct": r["chain_among_correct"], "answer_accuracy": r["answer_accuracy"],
         "chain_among_correct_answerable": r["chain_among_correct_answerable"], **others},
        ["tables/main.csv", "figures/stage_funnel.png"],
        positive_control=PositiveControl(
            "noisy_boxes_0.04: gold pages and facts with boxes jittered by 4% of the page (answers right, boxes often not)",
            {"chain_among_correct": _row(main, "noisy_boxes_0.04")["chain_among_correct"],
             "answer_accuracy": _row(main, "noisy_boxes_0.04")["answer_accuracy"]},
        ),
    )  # fmt: skip


def _region_weakest(main, system) -> Claim:
    r = _row(main, system)
    return Claim(
        "region_weakest", "region grounding is the weakest of the four stages",
        "region_score < page_f1 and region_score < fact_score and region_score < answer_accuracy",
        {"region_score": r["region_score"], "page_f1": r["page_f1"], "fact_score": r["fact_score"],
         "answer_accuracy": r["answer_accuracy"]},
        ["tables/main.csv", "figures/stage_funnel.png"],
    )  # fmt: skip


def _dispersion(disp) -> Claim:
    def drop(factor, col):
        t = disp[disp["factor"] == factor].sort_values("order")
        return float(t[col].iloc[0] - t[col].iloc[-1])

    return Claim(
        "dispersion", "accuracy and chain completeness fall as evidence is dispersed over longer distances and more clusters",  # noqa: E501
        "acc_drop_distance > 0 and acc_drop_clusters > 0 and chain_drop_distance > 0 and chain_drop_clusters > 0",
        {"acc_drop_distance": drop("distance_bin", "answer_accuracy"), "acc_drop_clusters": drop("clusters", "answer_accuracy"),  # noqa: E501
         "chain_drop_distance": drop("distance_bin", "chain_rate"), "chain_drop_clusters": drop("clusters", "chain_rate")},
        ["tables/dispersion.csv", "figures/dispersion.png"],
    )  # fmt: skip


def _oracle(orc) -> Claim:
    g = orc.set_index("variant")["marginal_gain"]
    return Claim(
        "oracle_facts_largest", "faithful perception and fact extraction are the dominant bottleneck: of the oracle steps "
        "(pages, then regions, then facts), giving the facts brings the largest accuracy gain",
        "gain_facts > gain_regions and gain_facts > gain_pages",
        {"gain_pages": g["oracle_pages"], "gain_regions": g["oracle_regions"], "gain_facts": g["oracle_facts"]},
        ["tables/oracle.csv", "figures/oracle.png"],
    )  # fmt: skip


def _kappa(kappa) -> Claim:
    k = kappa.set_index("judge")
    return Claim(
        "judge_kappa", "the (offline) judges agree with gold labels: Cohen's kappa >= 0.8 for each",
        "min(region_kappa, fact_kappa, answer_kappa) >= 0.8",
        {f"{j}_kappa": k.loc[j, "kappa"] for j in ("region", "fact", "answer")}
        | {f"{j}_kappa_seed_min": k.loc[j, "kappa_seed_min"] for j in ("region", "fact", "answer")},
        ["tables/judge_kappa.csv"],
    )  # fmt: skip


def _scale() -> Claim:
    return Claim(
        "mllm_numbers", "DocScope: 1,124 questions over 273 documents; at most 29% of correct MLLM answers have complete chains",  # noqa: E501
        "chain_among_correct <= 0.29", {"chain_among_correct": None}, ["tables/main.csv"],
        why_untested="needs the DocScope release and multimodal LLMs (scale: paper with an OpenAI-compatible endpoint); "
        "offline, text-layer readers stand in for the MLLMs, so the paper's absolute numbers are not comparable",
    )  # fmt: skip


def build(main: pd.DataFrame, disp: pd.DataFrame, orc: pd.DataFrame, kappa: pd.DataFrame, system: str):
    claims = [
        _chain_gap(main, system),
        _region_weakest(main, system),
        _dispersion(disp),
        _oracle(orc),
        _kappa(kappa),
        _scale(),
    ]
    metrics = {f"{c.id}.{k}": v for c in claims for k, v in c.to_json()["measured"].items()}
    metrics.update({f"{c.id}.holds": c.to_json()["holds"] for c in claims})
    return claims, metrics

"""The abstract's claims, each a criterion over values measured in tables/layers.csv and tables/main.csv."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.common.claims import Claim, PositiveControl

LAYERS = ["tables/layers.csv", "figures/zo_snr_per_layer.png"]


def planted_control(cfg) -> dict:
    """The detector on the small decoder with an outlier planted at a known layer (inference only, ~1 s)."""
    import torch

    from neurips26.common.llm import encode_left_padded, residual_stream
    from neurips26.papers.zo_dominant_layer import method, models

    spec = dict(cfg.small_decoder)
    planted = int(spec["plant_layer"]) if int(spec["plant_layer"]) >= 0 else 1
    tokenizer, model = models.small_decoder(type(cfg.small_decoder)({**spec, "plant_layer": -1}), 0)
    models.plant_outlier(model, planted, 1e5)
    texts = ["Review: a fine film with a weak end\nSentiment:", "Article: shares fell on Monday\nTopic:"]
    ids, mask, position = encode_left_padded(tokenizer, texts)
    with torch.no_grad():
        profile = method.outlier_profile(residual_stream(model, ids, mask, position), mask)
    found = method.first_outlier_layer(profile, float(cfg.detector.ratio_min), float(cfg.detector.abs_min))
    return {"planted_layer": planted, "found_layer": found}


def build(layers: pd.DataFrame, main: pd.DataFrame, detector: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    c = cfg.claims
    near = int(c.neighbourhood)
    per_task = {}
    for (_, task), part in layers.groupby(["model", "task"]):
        single = part[part.layer >= 0].sort_values("layer")
        lstar = int(part.l_star.iloc[0])
        best = int(single.loc[single.snr.idxmax(), "layer"])
        median = float(single.snr.median())
        at = single.set_index("layer")
        prop = single.dropna(subset=["propagation"])
        per_task[task] = {
            "l_star": lstar, "best_layer": best,
            "best_descent_layer": int(single.loc[single.descent.idxmax(), "layer"]) if "descent" in single else -1,
            "snr_best": float(single.snr.max()), "snr_median": median,
            "descent_peak_ratio": float(single.descent.max() / max(abs(float(single.descent.median())), 1e-12)),
            "peak_ratio": float(single.snr.max() / max(abs(median), 1e-12)),
            "snr_lstar": float(at.snr.get(lstar, np.nan)), "snr_full": float(part[part.layer == -1].snr.iloc[0]),
            "prop_lstar": float(at.propagation.get(lstar, np.nan)), "prop_median": float(prop.propagation.median()),
            "n_layers": int(single.layer.max() + 1)}
    tasks = sorted(per_task)
    v = {t: per_task[t] for t in tasks}
    found_all = all(v[t]["l_star"] >= 0 for t in tasks)
    speed = main.pivot_table(index="task", columns="method", values="s_per_step")
    acc = main.pivot_table(index="task", columns="method", values="acc_after")

    def flat(key):
        return {f"{key}_{t}": v[t][key] for t in tasks}

    claims = [
        Claim("dominated_by_one_layer",
              "ZO fine-tuning is sharply dominated by a single decoding layer (per-layer SNR of a MeZO step is peaked)",
              f"min_peak_ratio >= {float(c.peak_ratio)}",
              {"min_peak_ratio": min(v[t]["peak_ratio"] for t in tasks), **flat("snr_best"), **flat("snr_median"),
               **flat("best_layer")}, LAYERS),
        Claim("first_outlier_layer_is_dominant",
              "the dominant layer equals the first activation-outlier layer, found by inference alone (every task)",
              f"all_found == 1 and max_offset <= {near}",
              {"all_found": int(found_all), "max_offset": max(abs(v[t]["best_layer"] - v[t]["l_star"]) for t in tasks),
               **flat("l_star"), **flat("best_layer"), **flat("best_descent_layer")},
              LAYERS + ["figures/outlier_profile.png"],
              positive_control=PositiveControl(
                  "detector on the small decoder with an outlier planted at a known layer (offset = found - planted)",
                  _control(cfg, found_all))),
        Claim("task_agnostic", "the dominant layer is task-agnostic (the same layer, within one, on every task)",
              f"lstar_range == 0 and best_range <= {2 * near}",
              {"lstar_range": max(v[t]["l_star"] for t in tasks) - min(v[t]["l_star"] for t in tasks),
               "best_range": max(v[t]["best_layer"] for t in tasks) - min(v[t]["best_layer"] for t in tasks)},
              LAYERS),
        Claim("single_layer_matches_full",
              "tuning the dominant layer alone matches or beats full-model ZO (SNR of a MeZO step, every task)",
              f"min_snr_gap >= -{float(c.match_tolerance)}",
              {"min_snr_gap": min(v[t]["snr_lstar"] - v[t]["snr_full"] for t in tasks), **flat("snr_lstar"),
               **flat("snr_full"),
               **{f"short_run_acc_{m}_{t}": acc.loc[t, m] for t in tasks for m in acc.columns}},
              LAYERS + ["tables/main.csv"]),
        Claim("sensitive_and_early",
              "the dominant layer combines high perturbation sensitivity with an early place in the residual stream",
              "min_prop_ratio > 1 and max_depth_fraction < 0.5",
              {"min_prop_ratio": min(v[t]["prop_lstar"] / v[t]["prop_median"] for t in tasks),
               "max_depth_fraction": max((v[t]["l_star"] + 1) / v[t]["n_layers"] for t in tasks)},
              ["tables/layers.csv", "figures/propagation.png"]),
        Claim("speedup", "dominant-layer ZO is faster per step than full-model ZO (the paper: up to 4.52x)",
              "min_speedup > 1",
              {"min_speedup": float((speed.zo_full / speed.zo_lstar).min()),
               **{f"speedup_{t}": float(speed.zo_full[t] / speed.zo_lstar[t]) for t in speed.index}},
              ["tables/main.csv"]),
        Claim("dominant_by_expected_descent",
              "(post hoc, see README) at a common lr the dominant layer is the one whose MeZO step moves the "
              "held-out loss most (expected descent g_B . g_E), it is the first outlier layer l* (within one) on "
              "every task, and the per-layer descent is peaked",
              f"descent_max_offset <= {near} and min_descent_peak_ratio >= {float(c.peak_ratio)}",
              {"descent_max_offset": max(abs(v[t]["best_descent_layer"] - v[t]["l_star"]) for t in tasks),
               "min_descent_peak_ratio": min(v[t]["descent_peak_ratio"] for t in tasks), **flat("best_descent_layer"),
               **flat("descent_peak_ratio")}, LAYERS,
              source="paper"),  # the paper's "high perturbation sensitivity"; POST HOC: defined after the SNR
        # criterion turned out flat on the first default runs (bbc, seeds 1-2); not pre-registered (README)
        Claim("model_specific",
              "the dominant layer is model-specific: the detector's first outlier layer l* differs between two model "
              "families (SmolLM2 decoder, MiniLM encoder) on every task",
              "all_found == 1 and min_lstar_range > 0", _model_specific(detector),
              ["tables/detector.csv", "figures/outlier_profile.png"], why_untested=_no_outlier_layer(detector)),
    ]
    metrics = {"per_task": per_task, "s_per_step": speed.to_dict(), "acc_after": acc.to_dict()}
    return claims, metrics


def _model_specific(detector: pd.DataFrame) -> dict:
    """l* per model x task, and over tasks the smallest spread of l* across the models (> 0: they differ on every
    task); depth fractions (l* + 1) / layers are reported beside."""
    per = detector.groupby(["model", "task"]).agg(l_star=("l_star", "first"), n_layers=("n_layers", "first"))
    per = per.reset_index()
    spread = per.groupby("task").l_star.agg(lambda s: int(s.max() - s.min()))
    return {"all_found": int((per.l_star >= 0).all()), "n_models": int(per.model.nunique()),
            "min_lstar_range": int(spread.min()) if per.model.nunique() > 1 else 0,
            **{f"l_star_{r.model}_{r.task}": int(r.l_star) for r in per.itertuples()},
            **{f"depth_{r.model}_{r.task}": (int(r.l_star) + 1) / int(r.n_layers) for r in per.itertuples()}}


def _no_outlier_layer(detector: pd.DataFrame) -> str | None:
    """A model without a massive-activation layer has no l* to compare: the claim is then untested (the run lacks the
    structure the claim is about), not refuted."""
    per = detector.groupby("model").agg(found=("l_star", lambda s: bool((s >= 0).all())), ratio=("ratio", "max"))
    missing = per[~per.found]
    if missing.empty:
        return None
    named = ", ".join(f"{m} (largest max/median ratio {r.ratio:.0f})" for m, r in missing.iterrows())
    return (f"no first outlier layer in {named}: the detector finds no massive activation there, so there is no l* "
            "to compare across families; a second decoder family with massive activations (e.g. GPT-2 or Qwen by hub "
            "name, scale: paper) is needed")


def _control(cfg, found_all: bool) -> dict:
    result = planted_control(cfg)
    return {"all_found": int(result["found_layer"] >= 0),
            "max_offset": abs(result["found_layer"] - result["planted_layer"])}

"""The abstract's claims (contract v2): tests over per-seed values of tables/layers_seeds.csv (per-layer ZO signal,
propagation, l* of each model x task x seed), tables/main_seeds.csv (the short runs) and tables/detector_seeds.csv
(l* of SmolLM2 and MiniLM per task and seed). Each old criterion keeps its threshold (config `claims`) and becomes a
95% t interval over seeds of the per-seed statistic, one test per task where the claim says "every task"."""

from __future__ import annotations

import math

import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, RuleTest, SeedTest, paired

LAYERS = ["tables/layers.csv", "tables/layers_seeds.csv", "figures/zo_snr_per_layer.png"]
PLANTED = "detector on the small decoder (initialised from each run seed) with an outlier planted at a known layer"


def planted_control(cfg, seed: int) -> dict:
    """The detector on the small decoder with an outlier planted at a known layer (inference only, ~1 s); the
    decoder's random weights follow the run seed (experiments.init_seed)."""
    import torch

    from neurips26.common.models.llm import encode_left_padded, residual_stream
    from neurips26.papers.zo_dominant_layer import method, models
    from neurips26.papers.zo_dominant_layer.experiments import init_seed

    spec = dict(cfg.small_decoder)
    planted = int(spec["plant_layer"]) if int(spec["plant_layer"]) >= 0 else 1
    tokenizer, model = models.small_decoder(type(cfg.small_decoder)({**spec, "plant_layer": -1}), init_seed(seed))
    models.plant_outlier(model, planted, 1e5)
    texts = ["Review: a fine film with a weak end\nSentiment:", "Article: shares fell on Monday\nTopic:"]
    ids, mask, position = encode_left_padded(tokenizer, texts)
    with torch.no_grad():
        profile = method.outlier_profile(residual_stream(model, ids, mask, position), mask)
    found = method.first_outlier_layer(profile, float(cfg.detector.ratio_min), float(cfg.detector.abs_min))
    return {"planted_layer": planted, "found_layer": found}


def _ratio(top: float, median: float) -> float:
    return float(top / max(abs(median), 1e-12))


def per_seed_stats(layers: pd.DataFrame, main: pd.DataFrame) -> pd.DataFrame:
    """One row per model x task x seed: l*, the best single layer by ZO SNR and by expected descent, their peak ratios
    over the median layer, SNR at l* and of the full model, propagation at l* against the median propagated layer,
    the depth fraction (l* + 1) / layers, the speed-up full / l* and the short runs' accuracies."""
    rows = []
    for (model, task, seed), part in layers.groupby(["model", "task", "seed"]):
        single = part[part.layer >= 0].sort_values("layer")
        at = single.set_index("layer")
        lstar = int(part.l_star.iloc[0])
        found = lstar >= 0
        nan = float("nan")
        prop = single.dropna(subset=["propagation"])
        best = int(single.loc[single.snr.idxmax(), "layer"])
        best_descent = int(single.loc[single.descent.idxmax(), "layer"])
        runs = main[(main.model == model) & (main.task == task) & (main.seed == seed)].set_index("method")
        rows.append({
            # a missing l* (-1 from the detector) is NaN here, never a layer: a range over tasks must not read -1 as one
            "model": model, "task": task, "seed": int(seed), "l_star": lstar if found else nan,
            "n_layers": int(single.layer.max() + 1),
            "best_layer": best, "best_descent_layer": best_descent,
            "offset": best - lstar if found else nan, "descent_offset": best_descent - lstar if found else nan,
            "peak_ratio": _ratio(single.snr.max(), single.snr.median()),
            "descent_peak_ratio": _ratio(single.descent.max(), single.descent.median()),
            "snr_lstar": float(at.snr.get(lstar, nan)), "snr_full": float(part[part.layer == -1].snr.iloc[0]),
            "prop_ratio": float(at.propagation.get(lstar, nan)) / float(prop.propagation.median()) if found else nan,
            "depth_fraction": (lstar + 1) / int(single.layer.max() + 1) if found else nan,
            "speedup": float(runs.s_per_step["zo_full"] / runs.s_per_step["zo_lstar"])
            if {"zo_full", "zo_lstar"} <= set(runs.index) else nan,
            **{f"acc_{m}": float(runs.acc_after.get(m, nan)) for m in ("zo_lstar", "zo_full", "zo_lora", "zo_random",
                                                                       "fo_lstar")}})
    return pd.DataFrame(rows)


def _col(stats: pd.DataFrame, task: str, col: str) -> dict:
    part = stats[stats.task == task]
    return {int(s): (None if isinstance(v, float) and math.isnan(v) else v) for s, v in zip(part.seed, part[col])}


def _per_task(stats: pd.DataFrame, col: str, name: str, side: str, bound) -> list[SeedTest]:
    return [SeedTest(f"{task}: {name}", _col(stats, task, col), side, bound) for task in sorted(stats.task.unique())]


def _across_tasks(stats: pd.DataFrame, col: str, how) -> dict:
    """{seed: how(values over tasks)}; None where a task's value is missing."""
    out = {}
    for seed, part in stats.groupby("seed"):
        values = part[col].astype(float)
        out[int(seed)] = None if values.isna().any() else float(how(values))
    return out


def build(layers: pd.DataFrame, main: pd.DataFrame, detector: pd.DataFrame, cfg) -> list[Claim]:
    """layers: tables/layers_seeds.csv; main: tables/main_seeds.csv; detector: tables/detector_seeds.csv."""
    c = cfg.claims
    near, peak, tolerance = int(c.neighbourhood), float(c.peak_ratio), float(c.match_tolerance)
    stats = per_seed_stats(layers, main)
    planted = {int(s): planted_control(cfg, int(s)) for s in cfg.seeds}
    planted_offset = {s: (p["found_layer"] - p["planted_layer"] if p["found_layer"] >= 0 else None)
                      for s, p in planted.items()}
    lstar_by_task = {f"l_star_{t}": _col(stats, t, "l_star") for t in sorted(stats.task.unique())}
    best_by_task = {f"best_layer_{t}": _col(stats, t, "best_layer") for t in sorted(stats.task.unique())}
    evidence_main = ["tables/main.csv", "tables/main_seeds.csv"]

    claims = [
        Claim("dominated_by_one_layer",
              "ZO fine-tuning is sharply dominated by a single decoding layer (per-layer SNR of a MeZO step is peaked)",
              f"per task and seed, best single layer's ZO SNR / median layer's: 95% t interval over seeds above {peak}, "
              "on every task",
              _per_task(stats, "peak_ratio", "best / median layer SNR", ">", peak), LAYERS,
              {"value": None, "where": "abstract (no number); the paper's per-layer sweeps"},
              per_seed=best_by_task),
        Claim("first_outlier_layer_is_dominant",
              "the dominant layer equals the first activation-outlier layer, found by inference alone (every task)",
              f"per task and seed, best-SNR layer - l*: 95% t interval within [-{near}, {near}] on every task, and an "
              f"outlier layer found in every run (a rule); positive control: the detector finds a planted outlier layer",
              [*_per_task(stats, "offset", "best SNR layer - l*", "within", (-near, near)),
               RuleTest("share of (task, seed) runs with an outlier layer found",
                        {"found_share": float(stats.l_star.notna().mean())}, "found_share >= 1", "found_share < 1",
                        rule="the claim is about the first outlier layer: a run where the detector finds none fails it")],
              LAYERS + ["figures/outlier_profile.png"],
              {"value": None, "where": "abstract: 'consistently aligns with the first activation-outlier layer'"},
              controls=[Control("planted_outlier", "positive", PLANTED,
                                SeedTest("found - planted layer", planted_offset, "within", (-near, near)))],
              per_seed={**lstar_by_task, **best_by_task}),
        Claim("task_agnostic", "the dominant layer is task-agnostic (the same layer, within one, on every task)",
              f"per seed, range over tasks of l*: 95% t interval within [0, 0]; range over tasks of the best-SNR layer: "
              f"within [0, {2 * near}]",
              [SeedTest("l* range over tasks", _across_tasks(stats, "l_star", lambda v: v.max() - v.min()), "within",
                        (0, 0)),
               SeedTest("best SNR layer range over tasks",
                        _across_tasks(stats, "best_layer", lambda v: v.max() - v.min()), "within", (0, 2 * near))],
              LAYERS, {"value": None, "where": "abstract: 'the dominant layer is task-agnostic'"},
              per_seed={**lstar_by_task, **best_by_task}),
        Claim("single_layer_matches_full",
              "tuning the dominant layer alone matches or beats full-model ZO (SNR of a MeZO step, every task)",
              f"per task and seed, ZO SNR at l* - ZO SNR of the full model: 95% t interval above -{tolerance} on every "
              "task",
              [SeedTest(f"{t}: SNR at l* - full-model SNR", paired(_col(stats, t, "snr_lstar"), _col(stats, t, "snr_full")),
                        ">", -tolerance) for t in sorted(stats.task.unique())],
              LAYERS + evidence_main,
              {"value": None, "where": "abstract: 'matches or even exceeds full-model ZO fine-tuning'"},
              per_seed={f"short_run_acc_{m}_{t}": _col(stats, t, f"acc_{m}") for t in sorted(stats.task.unique())
                        for m in ("zo_lstar", "zo_full")}),
        Claim("sensitive_and_early",
              "the dominant layer combines high perturbation sensitivity with an early place in the residual stream",
              "per task and seed, propagation at l* / median propagated layer: 95% t interval above 1; depth fraction "
              "(l* + 1) / layers: interval below 0.5; on every task",
              _per_task(stats, "prop_ratio", "propagation at l* / median", ">", 1.0)
              + _per_task(stats, "depth_fraction", "(l* + 1) / layers", "<", 0.5),
              ["tables/layers.csv", "tables/layers_seeds.csv", "figures/propagation.png"],
              {"value": None, "where": "abstract: 'high perturbation sensitivity and early placement'"}),
        Claim("speedup", "dominant-layer ZO is faster per step than full-model ZO (the paper: up to 4.52x)",
              "per task and seed, seconds per step of full-model ZO / ZO at l*: 95% t interval above 1 on every task",
              _per_task(stats, "speedup", "s/step full / s/step at l*", ">", 1.0), evidence_main,
              {"value": 4.52, "where": "abstract: 'up to 4.52× training speedup' (LLaMA2-7B, Qwen3-8B)"}),
        Claim("dominant_by_expected_descent",
              "(post hoc, see README) at a common lr the dominant layer is the one whose MeZO step moves the "
              "held-out loss most (expected descent g_B . g_E), it is the first outlier layer l* (within one) on "
              "every task, and the per-layer descent is peaked",
              f"per task and seed, largest-descent layer - l*: 95% t interval within [-{near}, {near}]; largest / "
              f"median layer descent: interval above {peak}; on every task",
              _per_task(stats, "descent_offset", "largest-descent layer - l*", "within", (-near, near))
              + _per_task(stats, "descent_peak_ratio", "largest / median layer descent", ">", peak), LAYERS,
              {"value": None, "where": "abstract: 'disproportionately strong and stable optimization signals'"},
              per_seed={f"best_descent_layer_{t}": _col(stats, t, "best_descent_layer")
                        for t in sorted(stats.task.unique())}),
        Claim("model_specific",
              "the dominant layer is model-specific: the detector's first outlier layer l* differs between two model "
              "families that both have massive activations, on every task",
              "per seed, the smallest over tasks of |l*(model A) - l*(model B)| (missing where a model has no outlier "
              "layer): 95% t interval above 0.5 (the spread is a whole number of layers: > 0 is >= 1); decided at "
              "scale=paper on two decoder families (LLaMA2-7B, Qwen3-8B)",
              [SeedTest("min over tasks of the l* spread across models", _model_spread(detector), ">", 0.5)],
              ["tables/detector.csv", "tables/detector_seeds.csv", "figures/outlier_profile.png"],
              {"value": None, "where": "abstract: 'task-agnostic but model-specific'"},
              decided_at="paper", decided_data="real",
              per_seed={f"l_star_{m}_{t}": {int(r.seed): int(r.l_star) for r in part.itertuples()}
                        for (m, t), part in detector.groupby(["model", "task"])}),
        Claim("improves_over_mezo_lora",
              "dominant-layer ZO fine-tuning improves average accuracy over full-model MeZO and LoRA-based ZO "
              "(LLaMA2-7B and Qwen3-8B, nine benchmarks)",
              "per seed, accuracy after ZO at l* - after full-model ZO, and - after LoRA ZO, averaged over tasks: 95% "
              "t interval above 0 for both; decided at scale=paper data=real (the default runs take one step)",
              [SeedTest("mean over tasks: acc ZO at l* - acc full-model ZO",
                        _mean_gap(stats, "acc_zo_lstar", "acc_zo_full"), ">", 0.0),
               SeedTest("mean over tasks: acc ZO at l* - acc LoRA ZO",
                        _mean_gap(stats, "acc_zo_lstar", "acc_zo_lora"), ">", 0.0)],
              evidence_main,
              {"value": None, "where": "abstract: 'improves average performance over full-model MeZO and LoRA-based ZO' "
                                       "(the nine benchmarks' tables)"},
              decided_at="paper", decided_data="real"),
    ]
    return claims


def _mean_gap(stats: pd.DataFrame, a: str, b: str) -> dict:
    gap = stats.assign(gap=stats[a] - stats[b])
    return {int(s): (None if part.gap.isna().any() else float(part.gap.mean())) for s, part in gap.groupby("seed")}


def _model_spread(detector: pd.DataFrame) -> dict:
    """{seed: min over tasks of (max - min of l* across the models)}; None where a model has no outlier layer (l* < 0)
    or only one model is present."""
    out = {}
    for seed, part in detector.groupby("seed"):
        if part.model.nunique() < 2 or (part.l_star < 0).any():
            out[int(seed)] = None
            continue
        out[int(seed)] = float(part.groupby("task").l_star.agg(lambda s: int(s.max() - s.min())).min())
    return out

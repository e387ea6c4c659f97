"""The abstract's claims (contract v2, issue #55 item 3), on accuracy after fine-tuning:

tables/sweep_seeds.csv (every training run: MeZO on each layer alone, full-model MeZO, LoRA MeZO, first-order l*; the
lr chosen on dev is `chosen`), tables/curves_seeds.csv (their dev curves), tables/layers_seeds.csv (the probe:
propagation and the ZO-signal diagnostics) and tables/detector_seeds.csv (l* of SmolLM2 and MiniLM). Claims a-f are
decided at scale=long (default trains only a small random decoder for plumbing); the SNR and the expected descent are
sanity diagnostics, never a claim's evidence (issue #55 h).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, RuleTest, SeedTest, paired, seed_interval
from neurips26.common.pipeline.seed_streams import rng as seed_stream

SWEEP = ["tables/sweep.csv", "tables/sweep_seeds.csv", "figures/layer_sweep_acc.png"]
CURVES = ["tables/curves_seeds.csv", "figures/dev_curves.png"]
PLANTED = "detector on the small decoder (initialised from each run seed) with an outlier planted at a known layer"
SNR_MAX = 1 / math.sqrt(2)  # SNR = c / sqrt(1 + c^2) with c <= 1 (the probe's formula): never above 1/sqrt(2)


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


def dominance_gap(dev_acc: np.ndarray, test_acc: np.ndarray) -> float:
    """Test accuracy of the layer with the best dev accuracy minus the median layer's test accuracy. The layer is
    picked on dev so that the gap of a flat sweep is ~0: the largest of 30 noisy test accuracies exceeds their median
    even when no layer is better (the flat control shows it)."""
    return float(test_acc[int(np.argmax(dev_acc))] - np.median(test_acc))


def time_to_target(curve: pd.DataFrame, target: float, s_per_step: float) -> float:
    """Training seconds until the dev accuracy first reaches `target` (at least one step's time); inf if never."""
    reached = curve[curve.dev_acc >= target - 1e-12]
    return max(float(reached.train_seconds.iloc[0]), s_per_step) if len(reached) else math.inf


def per_seed_stats(sweep: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """One row per model x task x seed from the chosen-lr runs: the sweep's argmax layer, the dominance gap, l*, the
    accuracies at l*, the random layer, full-model, LoRA and first-order runs, and the speed and memory ratios."""
    nan = float("nan")
    rows = []
    chosen = sweep[sweep.chosen.astype(bool)]
    for (model, task, seed), part in chosen.groupby(["model", "task", "seed"]):
        layers = part[part.method == "zo_layer"].sort_values("layer")
        if layers.empty:
            continue
        n_layers = int(part.n_layers.iloc[0])
        lstar = int(part.l_star.iloc[0])
        found = lstar >= 0
        by_layer = layers.set_index("layer")
        method = part[part.method != "zo_layer"].set_index("method")
        test = layers.test_acc.to_numpy()
        argmax = int(layers.layer.iloc[int(np.argmax(test))])
        at = by_layer.loc[lstar] if found and lstar in by_layer.index else None

        speed = nan if at is None or "zo_full" not in method.index else \
            float(method.s_per_step["zo_full"] / at.s_per_step)
        reach = nan
        if at is not None and "zo_full" in method.index:
            full = method.loc["zo_full"]
            run = curves[(curves.model == model) & (curves.task == task) & (curves.seed == seed)
                         & (curves.method == "zo_layer") & (curves.layer == lstar) & np.isclose(curves.lr, at.lr)]
            t_l = time_to_target(run.sort_values("forward_passes"), float(full.best_dev_acc), float(at.s_per_step))
            # full MeZO's time to its own best dev accuracy; 0 when it never improved on the pretrained model
            reach = float(full.seconds_to_best) / t_l if full.seconds_to_best > 0 else nan
        rows.append({
            "model": model, "task": task, "seed": int(seed), "n_layers": n_layers, "l_star": lstar if found else nan,
            "argmax_layer": argmax, "offset": argmax - lstar if found else nan,
            "chance": (min(lstar + 1, n_layers - 1) - max(lstar - 1, 0) + 1) / n_layers if found else nan,
            "gap": dominance_gap(layers.best_dev_acc.to_numpy(), test),
            "acc_lstar": float(at.test_acc) if at is not None else nan,
            "acc_random": float(by_layer.test_acc.get(int(part.random_layer.iloc[0]), nan)),
            "acc_full": _acc(method, "zo_full"), "acc_lora": _acc(method, "zo_lora"),
            "acc_fo_lstar": _acc(method, "fo_lstar"),
            "acc_pretrained": float(part.pretrained_test_acc.iloc[0]),
            "speedup_step": speed, "speedup_to_target": reach,
            "memory_ratio": float(method.peak_mem_mb["zo_full"] / at.peak_mem_mb)
            if at is not None and "zo_full" in method.index else nan,
            "speedup_cached": float(method.s_per_step["zo_full"] / method.s_per_step["zo_lstar_cached"])
            if {"zo_full", "zo_lstar_cached"} <= set(method.index) else nan,
            "plateau_full": float(method.plateaued["zo_full"]) if "zo_full" in method.index else nan,
            "plateau_lstar": float(at.plateaued) if at is not None else nan})
    return pd.DataFrame(rows)


def _acc(methods: pd.DataFrame, name: str) -> float:
    return float(methods.test_acc[name]) if name in methods.index else float("nan")


def probe_stats(layers: pd.DataFrame) -> pd.DataFrame:
    """One row per model x task x seed of the probe: propagation at l* and at l* - 1 (the last layer before the
    first outlier: as early, without one) over the median layer, and the depth fraction (l* + 1) / layers."""
    rows = []
    nan = float("nan")
    for (model, task, seed), part in layers.groupby(["model", "task", "seed"]):
        single = part[part.layer >= 0].set_index("layer")
        lstar, n = int(part.l_star.iloc[0]), len(single)
        median = float(single.propagation.median())
        rows.append({"model": model, "task": task, "seed": int(seed),
                     "prop_ratio": float(single.propagation[lstar]) / median if lstar >= 0 else nan,
                     "control_prop_ratio": float(single.propagation[lstar - 1]) / median if lstar >= 1 else nan,
                     "depth_fraction": (lstar + 1) / n if lstar >= 0 else nan})
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


def gap_test(name: str, per_seed: dict, threshold: float) -> RuleTest:
    """(a) on one task: the mean gap is at least `threshold` and its 95% t interval lies above 0 (holds); the mean is
    below the threshold (fails); a mean above it with an interval reaching 0 is inconclusive."""
    mean, lo, hi = seed_interval(list(per_seed.values()))
    return RuleTest(name, {"gap_mean": mean, "gap_ci_low": lo, "gap_ci_high": hi},
                    f"gap_mean >= {threshold} and gap_ci_low > 0", f"gap_mean < {threshold}",
                    rule=f"mean over seeds >= {threshold} and the 95% t interval (n - 1 df) above 0", per_seed=per_seed)


def synthetic_gaps(n_layers: int, base: float, n_dev: int, n_test: int, peak: float, seeds, purpose: str) -> dict:
    """{seed: gap} of a synthetic sweep: every layer at accuracy `base`, layer n_layers // 3 at base + peak, dev and
    test accuracies drawn binomially from the run's own dev and test sizes (the sampling noise of a real sweep)."""
    out = {}
    for seed in seeds:
        rng = seed_stream(int(seed), purpose)
        p = np.full(n_layers, base)
        p[n_layers // 3] = min(base + peak, 1.0)
        dev, test = rng.binomial(n_dev, p) / n_dev, rng.binomial(n_test, p) / n_test
        out[int(seed)] = dominance_gap(dev, test)
    return out


def build(layers: pd.DataFrame, sweep: pd.DataFrame, curves: pd.DataFrame, detector: pd.DataFrame, cfg) -> list[Claim]:
    """layers: tables/layers_seeds.csv; sweep: tables/sweep_seeds.csv; curves: tables/curves_seeds.csv; detector:
    tables/detector_seeds.csv."""
    c = cfg.claims
    near = int(c.neighbourhood)
    stats, probe = per_seed_stats(sweep, curves), probe_stats(layers)
    tasks = sorted(stats.task.unique())
    seeds = [int(s) for s in cfg.seeds]
    threshold = float(c.dominance_gap)
    # synthetic sweeps shaped like the measured one: its layer count, its median test accuracy, its dev / test sizes
    chosen_layers = sweep[(sweep.method == "zo_layer") & sweep.chosen.astype(bool)]
    shape = {"n_layers": int(stats.n_layers.max()), "base": float(chosen_layers.test_acc.median()),
             "n_dev": int(cfg.tasks.n_dev), "n_test": int(cfg.tasks.n_test)}
    peaked = synthetic_gaps(**shape, peak=3 * threshold, seeds=seeds, purpose="control_peaked")
    flat = synthetic_gaps(**shape, peak=0.0, seeds=seeds, purpose="control_flat")
    planted = {int(s): planted_control(cfg, int(s)) for s in seeds}
    planted_offset = {s: (p["found_layer"] - p["planted_layer"] if p["found_layer"] >= 0 else None)
                      for s, p in planted.items()}
    lstar_by_task = {f"l_star_{t}": _col(stats, t, "l_star") for t in tasks}
    argmax_by_task = {f"argmax_layer_{t}": _col(stats, t, "argmax_layer") for t in tasks}
    accs = {f"acc_{m}_{t}": _col(stats, t, f"acc_{m}") for t in tasks
            for m in ("lstar", "full", "lora", "random", "fo_lstar", "pretrained")}
    converged = {"plateau_share": float(pd.concat([stats.plateau_full, stats.plateau_lstar]).mean())
                 if len(stats) else None}
    swept = sweep[(sweep.method == "zo_layer") & sweep.chosen.astype(bool)]
    share = float(swept.plateaued.astype(float).mean()) if len(swept) else None
    min_share = float(c.sweep_plateau_share)
    sweep_converged = Control(
        "sweep_converged", "positive", f"at least {min_share:.0%} of the sweep's chosen runs plateaued on dev",
        RuleTest("share of the sweep's chosen runs plateaued", {"plateau_share": share},
                 f"plateau_share >= {min_share}", f"plateau_share < {min_share}"))

    claims = [
        Claim("dominated_by_one_layer",
              "ZO fine-tuning is sharply dominated by a single decoding layer: MeZO on one layer alone, swept over "
              "every layer, has one layer well above the median layer in test accuracy",
              f"per task and seed, test accuracy of the layer with the best dev accuracy - the median layer's (every "
              f"layer fine-tuned alone, lr from a dev grid): mean over seeds >= {threshold} and its 95% t interval "
              "above 0, on every task; controls: a synthetic peaked sweep passes, a flat one fails",
              [gap_test(f"{t}: dev-picked layer - median layer test accuracy", _col(stats, t, "gap"), threshold)
               for t in tasks], SWEEP,
              {"value": None, "where": "abstract (no number); the paper's per-layer sweeps"},
              controls=[Control("peaked_sweep", "positive", f"synthetic sweep: one layer {3 * threshold} above the "
                                "rest, binomial noise of the run's dev and test sizes",
                                gap_test("peaked synthetic sweep", peaked, threshold)),
                        Control("flat_sweep", "negative", "synthetic sweep: every layer equal, the same noise",
                                gap_test("flat synthetic sweep", flat, threshold)), sweep_converged],
              decided_at="long", per_seed={**argmax_by_task, **accs}),
        Claim("first_outlier_layer_is_dominant",
              "the dominant layer (the sweep's argmax of test accuracy) is the first activation-outlier layer l*, "
              "found by inference alone, on every task",
              f"per task and seed, argmax layer - l*: 95% t interval within [-{near}, {near}] on every task, and an "
              f"outlier layer found in every run (a rule); chance of landing within {near} of l* is reported; positive "
              "control: the detector finds a planted outlier layer",
              [*_per_task(stats, "offset", "argmax layer - l*", "within", (-near, near)),
               RuleTest("share of (task, seed) runs with an outlier layer found",
                        {"found_share": float(stats.l_star.notna().mean()) if len(stats) else None},
                        "found_share >= 1", "found_share < 1",
                        rule="the claim is about the first outlier layer: a run where the detector finds none fails it")],
              SWEEP + ["figures/outlier_profile.png"],
              {"value": None, "where": "abstract: 'consistently aligns with the first activation-outlier layer'"},
              controls=[Control("planted_outlier", "positive", PLANTED,
                                SeedTest("found - planted layer", planted_offset, "within", (-near, near))),
                        sweep_converged],
              decided_at="long", measured={"chance_within_one": float(stats.chance.mean()) if len(stats) else None},
              per_seed={**lstar_by_task, **argmax_by_task}),
        Claim("task_agnostic", "the dominant layer is task-agnostic: the sweep's argmax layers of all tasks lie "
              f"within {near} of each other",
              f"per seed, range over tasks of the argmax layer: 95% t interval within [0, {near}]",
              [SeedTest("argmax layer range over tasks",
                        _across_tasks(stats, "argmax_layer", lambda v: v.max() - v.min()), "within", (0, near))],
              SWEEP, {"value": None, "where": "abstract: 'the dominant layer is task-agnostic'"},
              controls=[sweep_converged],
              decided_at="long", per_seed=argmax_by_task),
        Claim("single_layer_matches_full",
              "MeZO on l* alone matches or beats full-model MeZO in test accuracy (equal forward passes, each lr from "
              "its own dev grid), on every task; reported against LoRA MeZO",
              f"per task and seed, acc(l*) - acc(full-model MeZO): 95% t interval lower bound above "
              f"-{float(c.match_tolerance)}; required positive control: the chosen l* and full-model runs' dev curves "
              "plateaued (the convergence rule)",
              [SeedTest(f"{t}: acc(l*) - acc(full)", paired(_col(stats, t, "acc_lstar"), _col(stats, t, "acc_full")),
                        ">", -float(c.match_tolerance)) for t in tasks],
              SWEEP + CURVES,
              {"value": None, "where": "abstract: 'matches or even exceeds full-model ZO fine-tuning'"},
              controls=[Control("converged", "positive", "every chosen l* and full-model run plateaued on dev",
                                RuleTest("share of chosen l* and full runs plateaued", converged, "plateau_share >= 1",
                                         "plateau_share < 1"))],
              decided_at="long",
              per_seed={**accs, **{f"acc_lstar_minus_lora_{t}": paired(_col(stats, t, "acc_lstar"),
                                                                      _col(stats, t, "acc_lora")) for t in tasks}}),
        Claim("sensitive_and_early",
              "the dominant layer combines high perturbation sensitivity with an early place in the residual stream",
              "per task and seed, propagation at l* / median over every layer (mean over draws x prompts): 95% t "
              "interval above 1; depth fraction (l* + 1) / layers: below 0.5; on every task; negative control per "
              "task: the same sensitivity test at l* - 1 (as early, no outlier) must not hold",
              _per_task(probe, "prop_ratio", "propagation at l* / median layer", ">", 1.0)
              + _per_task(probe, "depth_fraction", "(l* + 1) / layers", "<", 0.5),
              ["tables/layers.csv", "tables/layers_seeds.csv", "figures/propagation.png"],
              {"value": None, "where": "abstract: 'high perturbation sensitivity and early placement'"},
              controls=[Control(f"no_outlier_layer_{t}", "negative", "propagation at l* - 1 (the last layer before "
                                "the first outlier) / median layer",
                                SeedTest(f"{t}: propagation at l* - 1 / median layer",
                                         _col(probe, t, "control_prop_ratio"), ">", 1.0))
                        for t in sorted(probe.task.unique())],
              decided_at="long"),
        Claim("speedup", "dominant-layer MeZO trains faster than full-model MeZO (the paper: up to 4.52x), both on "
              "the full forward",
              "per task and seed, seconds per step of full-model MeZO / of MeZO on l* (equal steps), and full MeZO's "
              "time to its best dev accuracy / l*'s time to reach that accuracy (0 if it never does): 95% t "
              "intervals above 1 on every task; peak memory ratio and the prefix-cached variant reported",
              _per_task(stats, "speedup_step", "s/step full / s/step l*", ">", 1.0)
              + _per_task(stats, "speedup_to_target", "time to full's dev accuracy: full / l*", ">", 1.0),
              SWEEP + CURVES,
              {"value": 4.52, "where": "abstract: 'up to 4.52× training speedup' (LLaMA2-7B, Qwen3-8B)"},
              decided_at="long",
              per_seed={**{f"memory_ratio_{t}": _col(stats, t, "memory_ratio") for t in tasks},
                        **{f"speedup_prefix_cached_{t}": _col(stats, t, "speedup_cached") for t in tasks}}),
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
              "per seed, test accuracy of MeZO on l* - of full-model MeZO, and - of LoRA MeZO, averaged over tasks: "
              "95% t interval above 0 for both; decided at scale=paper data=real",
              [SeedTest("mean over tasks: acc(l*) - acc(full)", _mean_gap(stats, "acc_lstar", "acc_full"), ">", 0.0),
               SeedTest("mean over tasks: acc(l*) - acc(LoRA)", _mean_gap(stats, "acc_lstar", "acc_lora"), ">", 0.0)],
              SWEEP,
              {"value": None, "where": "abstract: 'improves average performance over full-model MeZO and LoRA-based ZO' "
                                       "(the nine benchmarks' tables)"},
              decided_at="paper", decided_data="real"),
        *sanity(layers),
    ]
    return claims


def sanity(layers: pd.DataFrame) -> list[Claim]:
    """The one-step ZO-signal diagnostics as construction checks (issue #55 h): the SNR formula's bound and the full
    model's expected descent as the sum of its blocks'."""
    single = layers[layers.layer >= 0]
    blocks = layers[layers.layer != -1]
    worst = 0.0
    for _, part in layers.groupby(["model", "task", "seed"]):
        full = float(part[part.layer == -1].descent.iloc[0])
        parts = blocks.loc[part.index.intersection(blocks.index)].descent
        worst = max(worst, abs(full - float(parts.sum())) / max(float(parts.abs().sum()), 1e-300))
    diag = ["tables/layers.csv", "tables/layers_seeds.csv", "figures/zo_snr_per_layer.png"]
    return [
        Claim("zo_snr_bound", "the per-layer SNR of a MeZO step (a diagnostic) obeys its bound 1/sqrt(2)",
              "largest SNR over every model, task, seed and layer <= 1/sqrt(2) (+1e-9)",
              [RuleTest("largest SNR", {"max_snr": float(single.snr.max())}, f"max_snr <= {SNR_MAX + 1e-9}",
                        f"max_snr > {SNR_MAX + 1e-9}")], diag,
              {"value": None, "where": "construction (the SNR formula)"}, kind="sanity", source="paper"),
        Claim("zo_descent_additive", "the full model's expected MeZO descent (a diagnostic) is the sum of its blocks'",
              "largest relative |descent(full) - sum over layers and the rest| <= 1e-6",
              [RuleTest("relative additivity error", {"error": worst}, "error <= 1e-6", "error > 1e-6")], diag,
              {"value": None, "where": "construction (dot products add over parameter blocks)"}, kind="sanity",
              source="paper"),
    ]


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

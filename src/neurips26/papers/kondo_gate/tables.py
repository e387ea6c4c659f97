"""Tables aggregated over seeds from the per-seed run CSVs (figures and claims read only these)."""

from __future__ import annotations

import pandas as pd

KEYS = ["task", "method", "keep_rate", "price"]
TARGET_FRACTION = 0.95  # backward passes to reach this fraction of DG's final score (the compute-speedup statistic)


def _final(runs: pd.DataFrame) -> pd.DataFrame:
    return runs.sort_values("step").groupby([*KEYS, "seed"], dropna=False, sort=False).tail(1)


def _last_fifth_gain(runs: pd.DataFrame) -> pd.DataFrame:
    """Score gained over the last fifth of training per run: final score minus the score at the last evaluation at or
    before 4/5 of the steps (the budget rule: DG has plateaued when this is < 1 point)."""
    def gain(run: pd.DataFrame) -> float:
        run = run.sort_values("step")
        earlier = run[run.step <= 0.8 * run.step.max()]
        return float(run.score.iloc[-1] - earlier.score.iloc[-1]) if len(earlier) else float("nan")
    out = runs.groupby([*KEYS, "seed"], dropna=False, sort=False)[["step", "score"]].apply(gain)
    return out.rename("last_fifth_gain").reset_index()


def _auc(runs: pd.DataFrame) -> pd.DataFrame:
    """Area under the learning curve per run: the mean held-out score over the evaluations after step 0 (a statistic
    that still separates methods when their final scores all reach the ceiling)."""
    later = runs[runs.step > 0]
    out = later.groupby([*KEYS, "seed"], dropna=False, sort=False)["score"].mean()
    return out.rename("auc").reset_index()


def _passes_to_target(runs: pd.DataFrame) -> pd.DataFrame:
    """Backward passes each run spent until its held-out score first reached TARGET_FRACTION of DG's final score on
    the same task and seed (NaN: never within the budget). DG's passes over a gate's are the gate's compute speedup,
    the gain the Kondo paper plots against problem size (egg `experiments/kondo`: 'compute speedup vs backward cost')."""
    final = _final(runs)
    dg = final[final.method == "dg"].set_index(["task", "seed"]).score

    def first(run: pd.DataFrame) -> pd.Series:
        key = (run.task.iloc[0], run.seed.iloc[0])
        later = run.sort_values("step")
        later = later[later.step > 0]
        reached = (later.score >= TARGET_FRACTION * dg[key]).to_numpy() if key in dg.index else []
        if not any(reached):
            return pd.Series({"passes_to_target": float("nan"), "evals_to_target": float("nan")})
        i = int(reached.argmax())
        # evals_to_target = 1: reached at the first evaluation, so the speedup only measures the keep rate (capped)
        return pd.Series({"passes_to_target": float(later.backward_passes.iloc[i]), "evals_to_target": float(i + 1)})

    cols = ["task", "seed", "step", "score", "backward_passes"]
    return runs.groupby([*KEYS, "seed"], dropna=False, sort=False)[cols].apply(first).reset_index()


def _by_price(runs: pd.DataFrame) -> pd.DataFrame:
    """Random gating at a price's realised rate differs in keep rate per seed: aggregate it by price alone."""
    return runs.assign(keep_rate=runs.keep_rate.where(runs.method != "random_at_price"))


def _final_with_stats(runs: pd.DataFrame) -> pd.DataFrame:
    if "screen_flops" not in runs:
        runs = runs.assign(screen_flops=0)
    final = _final(runs).merge(_last_fifth_gain(runs), on=[*KEYS, "seed"], how="left")
    final = final.merge(_passes_to_target(runs), on=[*KEYS, "seed"], how="left")
    return final.merge(_auc(runs), on=[*KEYS, "seed"], how="left")


def table_main(runs: pd.DataFrame) -> pd.DataFrame:
    """Final quality and cost per task x method x keep rate (or price), with ratios to DG (rho = 1).

    Cost: backward passes and backward FLOPs of the policy; screen FLOPs (forward + distillation of the cheap screening
    model, zero for every other method); last_fifth_gain checks the budget rule."""
    final = _final_with_stats(_by_price(runs))
    out = final.groupby(KEYS, dropna=False, sort=False).agg(
        score=("score", "mean"), score_std=("score", "std"), auc=("auc", "mean"), seeds=("seed", "nunique"),
        backward_passes=("backward_passes", "mean"), backward_flops=("backward_flops", "mean"),
        screen_flops=("screen_flops", "mean"), last_fifth_gain=("last_fifth_gain", "mean")).reset_index()
    dg = out[out.method == "dg"].set_index("task")
    out["score_vs_dg"] = out.score / out.task.map(dg.score)
    out["backward_reduction_vs_dg"] = out.task.map(dg.backward_passes) / out.backward_passes
    return out.sort_values(KEYS).reset_index(drop=True)


def table_main_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """The final row of every run per seed (before the mean over seeds of table_main): score, backward passes and
    FLOPs, screen FLOPs and last_fifth_gain per task x method x keep rate (or price) x seed; the claims' paired seed
    intervals read it."""
    final = _final_with_stats(runs)
    cols = [*KEYS, "seed", "step", "score", "auc", "backward_passes", "backward_flops", "screen_flops", "last_fifth_gain",
            "passes_to_target", "evals_to_target"]
    return final[cols].sort_values([*KEYS, "seed"]).reset_index(drop=True)


def table_curves(runs: pd.DataFrame) -> pd.DataFrame:
    """Learning curves: mean score and backward passes over seeds at every evaluation step."""
    return (_by_price(runs).groupby([*KEYS, "step"], dropna=False).agg(score=("score", "mean"),
                                                           backward_passes=("backward_passes", "mean"))
            .reset_index().sort_values([*KEYS, "step"]).reset_index(drop=True))


def table_bandit(runs: pd.DataFrame) -> pd.DataFrame:
    """Bandit gradient quality per estimator (setting main = the papers' bandit, gaussian_extra = the labelled extra):
    mean over seeds of cosine, signal and perpendicular noise."""
    cols = ["kept_fraction", "cosine", "signal", "noise"]
    if "setting" not in runs:
        runs = runs.assign(setting="main")
    out = runs.groupby(["setting", "method", "keep_rate"], dropna=False).agg(
        **{c: (c, "mean") for c in cols}, cosine_std=("cosine", "std"), seeds=("seed", "nunique")).reset_index()
    return out.sort_values(["setting", "method", "keep_rate"]).reset_index(drop=True)


def table_bandit_seeds(runs: pd.DataFrame) -> pd.DataFrame:
    """The bandit rows per seed (each the mean over that seed's random problems), before the mean over seeds."""
    cols = ["kept_fraction", "cosine", "signal", "noise"]
    if "setting" not in runs:
        runs = runs.assign(setting="main")
    return runs[["setting", "method", "keep_rate", "seed", *cols]].sort_values(
        ["setting", "method", "keep_rate", "seed"]).reset_index(drop=True)


def table_wallclock(runs: pd.DataFrame) -> pd.DataFrame:
    """Training wall-clock seconds (not deterministic: reported beside backward passes, never used by a claim)."""
    return runs.groupby(KEYS, dropna=False).agg(wall_s=("wall_s", "mean")).reset_index()


TABLES = {"main": table_main, "curves": table_curves, "bandit": table_bandit, "main_seeds": table_main_seeds,
          "bandit_seeds": table_bandit_seeds}

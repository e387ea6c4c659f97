"""Tables from the per-seed episode rows: MMLongBench-Doc-style accuracy / F1 with the official question groups
(single-page: one evidence page; cross-page: several pages and answerable; unanswerable), per corpus, agent and budget;
the ablations at the main budget; the RL learning curve. Means over seeds, with the standard deviation across seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.docatlas.scorer import NOT_ANSWERABLE, acc_and_f1

ORDER = ["direct", "static_rag", "harness", "no_notes", "no_review", "no_refine", "rl_policy", "rl_init"]


def _groups(d: pd.DataFrame) -> dict:
    na = d["answer"] == NOT_ANSWERABLE
    acc, f1 = acc_and_f1(list(d["answer"]), list(d["prediction"].fillna("")), list(d["score"]))
    return {"acc": acc, "f1": f1, "single": d.loc[d["pages"] == 1, "score"].mean(),
            "cross": d.loc[(d["pages"] != 1) & ~na, "score"].mean(), "unanswerable": d.loc[na, "score"].mean(),
            "steps": d["steps"].mean(), "max_obs_tokens": d["max_tokens"].max(), "questions": len(d)}


def mmlb_style(episodes: pd.DataFrame, cfg=None) -> pd.DataFrame:
    per_seed = pd.DataFrame([{"corpus": c, "agent": a, "budget": b, "seed": s, **_groups(d)}
                             for (c, a, b, s), d in episodes.groupby(["corpus", "agent", "budget", "seed"])])
    keys = ["corpus", "agent", "budget"]
    g = per_seed.groupby(keys)
    out = g[["acc", "f1", "single", "cross", "unanswerable", "steps"]].mean()
    out["acc_sd"] = g["acc"].std(ddof=1)
    out["max_obs_tokens"] = g["max_obs_tokens"].max()
    out["questions"] = g["questions"].sum()
    out["seeds"] = g.size()
    out = out.reset_index()
    out["rank"] = out["agent"].map({a: i for i, a in enumerate(ORDER)})
    return out.sort_values(["corpus", "budget", "rank"]).drop(columns="rank").reset_index(drop=True)


def ablation(episodes: pd.DataFrame, cfg) -> pd.DataFrame:
    """Accuracy per question group at the main budget for the full harness, its ablations and both decision rules."""
    d = episodes[(episodes["budget"] == cfg.main_budget) & episodes["agent"].isin(ORDER[2:])]
    t = mmlb_style(d)
    return t[["corpus", "agent", "budget", "acc", "acc_sd", "single", "cross", "unanswerable", "steps", "seeds"]]


def rl_curve(curve: pd.DataFrame, cfg=None) -> pd.DataFrame:
    g = curve.groupby("update")
    out = g[["episodes", "pass", "reward", "score"]].mean()
    out["reward_sd"] = g["reward"].std(ddof=1)
    out["seeds"] = g.size()
    window = max(1, len(out) // 10)
    out["reward_smooth"] = out["reward"].rolling(window, min_periods=1).mean()
    out = out.reset_index()
    out["last_tenth"] = out["update"] >= len(out) - window
    out["converged_seeds"] = int(curve.groupby("seed")["converged"].first().sum())  # stopped by the rule, not the cap
    return out.assign(reward_sd=out["reward_sd"].fillna(np.nan))

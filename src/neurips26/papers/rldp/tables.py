"""Tables from the per-seed runs: routers (main), the accuracy-cost frontier, layers, difficulty levels, timing, LLM."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from neurips26.papers.rldp import method

ROUTERS = ["rldp", "probe", "rollout", "length", "random", "oracle", "truth"]  # truth: the positive control
TOLERANCE = 0.01  # "reaches the always-think accuracy within 1 point"


def _frontier(seed_rows: pd.DataFrame, router: str) -> dict[str, np.ndarray]:
    r = seed_rows
    if router == "rollout":  # the rollouts' tokens are spent on every query; their majority answers the no-think side
        return method.frontier(r.score_rollout, r.think_correct, r.think_tokens, None, None,
                               overhead_tokens=r.rollout_tokens, plain_answer_correct=r.rollout_majority_correct)
    return method.frontier(r[f"score_{router}"], r.think_correct, r.think_tokens, r.nothink_correct, r.nothink_tokens)


def _spearman(a, b) -> float:
    return float(spearmanr(a, b).statistic) if np.std(a) > 0 else float("nan")


def table_main(rows: pd.DataFrame) -> pd.DataFrame:
    """Per router and seed: Spearman with the steps, AUROC for no-think failure, the least tokens per query at which its
    frontier reaches the always-think accuracy minus 1 point, and the think fraction there; always / never think too."""
    out = []
    for seed, r in rows.groupby("seed"):
        target = r.think_correct.mean() - TOLERANCE
        fail = ~r.nothink_correct.astype(bool)
        for router in ROUTERS:
            front = _frontier(r, router)
            ok = np.flatnonzero(front["accuracy"] >= target - 1e-12)
            best = ok[np.argmin(front["tokens"][ok])] if len(ok) else None
            out.append({"seed": seed, "router": router, "spearman_steps": _spearman(r[f"score_{router}"], r.steps),
                        "auroc_nothink_fail": method.auroc(r[f"score_{router}"].to_numpy(), fail.to_numpy()),
                        "target_accuracy": target,
                        "tokens_at_target": float(front["tokens"][best]) if best is not None else float("nan"),
                        "accuracy_at_target": float(front["accuracy"][best]) if best is not None else float("nan"),
                        "think_fraction_at_target": float(front["think_fraction"][best]) if best is not None
                        else float("nan")})
        for router, think in (("always_think", True), ("never_think", False)):
            key = "think" if think else "nothink"
            out.append({"seed": seed, "router": router, "spearman_steps": float("nan"), "auroc_nothink_fail": float("nan"),
                        "target_accuracy": target, "tokens_at_target": r[f"{key}_tokens"].mean(),
                        "accuracy_at_target": r[f"{key}_correct"].mean(), "think_fraction_at_target": float(think)})
    return pd.DataFrame(out)


def table_frontier(rows: pd.DataFrame, grid: int = 41) -> pd.DataFrame:
    """Seed-mean frontier of every router on a grid of think fractions."""
    out = []
    fractions = np.linspace(0, 1, grid)
    for router in ROUTERS:
        acc, tok = [], []
        for _, r in rows.groupby("seed"):
            front = _frontier(r, router)
            acc.append(np.interp(fractions, front["think_fraction"], front["accuracy"]))
            tok.append(np.interp(fractions, front["think_fraction"], front["tokens"]))
        out += [{"router": router, "think_fraction": f, "accuracy": a, "tokens": t}
                for f, a, t in zip(fractions, np.mean(acc, 0), np.mean(tok, 0))]
    return pd.DataFrame(out)


def table_difficulty(rows: pd.DataFrame) -> pd.DataFrame:
    """Per difficulty level: both routes' accuracy and tokens, and every score standardised over the test set."""
    z = rows.copy()
    for router in ROUTERS:
        col = f"score_{router}"
        z[col] = z.groupby("seed")[col].transform(lambda s: (s - s.mean()) / (s.std() + 1e-12))
    cols = ["think_correct", "nothink_correct", "think_tokens", "nothink_tokens", "rollout_tokens",
            *[f"score_{r}" for r in ROUTERS]]
    return z.groupby("steps")[cols].mean().reset_index().assign(n=z.groupby("steps").size().to_numpy())


def table_layers(layers: pd.DataFrame) -> pd.DataFrame:
    return layers.groupby(["model", "layer"]).agg(
        loo_auroc=("loo_auroc", "mean"), test_spearman=("test_spearman", "mean"),
        test_auroc=("test_auroc", "mean"), chosen=("chosen", "sum")).reset_index()


def table_timing(timing: pd.DataFrame) -> pd.DataFrame:
    """Measured wall seconds per 1000 queries of each part (batched, CPU); varies from run to run."""
    t = timing.groupby("part").apply(lambda g: 1000 * g.seconds.sum() / g.n.sum(), include_groups=False)
    return t.rename("seconds_per_1000").reset_index()


def table_llm_seeds(llm: pd.DataFrame) -> pd.DataFrame:
    """SmolLM2 per seed and router (the per-seed values the claims compare)."""
    return llm.sort_values(["seed", "router"]).reset_index(drop=True)


def table_llm(llm: pd.DataFrame) -> pd.DataFrame:
    return llm.groupby("router").agg(spearman=("spearman", "mean"), spearman_min=("spearman", "min"),
                                     auroc=("auroc_college_vs_elementary", "mean"), n_test=("n_test", "first"),
                                     layer=("layer", lambda s: ",".join(map(str, sorted(set(s)))))).reset_index()

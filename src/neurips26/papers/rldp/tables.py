"""Tables from the per-seed runs: routers (main), the accuracy-cost frontier, layers, difficulty levels, timing, LLM."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from neurips26.papers.rldp import method

ROUTERS = ["rldp", "probe", "rollout", "length", "surface", "random", "random_control", "oracle", "truth"]
# truth: the positive control; surface (ridge on the prompt's character counts), length and random_control (a second,
# independent random router): negative controls
TOLERANCE = 0.01  # "reaches the always-think accuracy within 1 point"


def rollout_ks(rows: pd.DataFrame) -> list[int]:
    return sorted(int(c.rsplit("_k", 1)[1]) for c in rows if c.startswith("score_rollout_k"))


def _frontier(r: pd.DataFrame, router: str, k: int | None = None) -> dict[str, np.ndarray]:
    """One split's frontier of one router. Rollouts: their k draws' tokens are spent on every query; their majority
    answers the no-think side at no further cost (the cheapest fair use of them)."""
    if router == "rollout":
        return method.frontier(r[f"score_rollout_k{k}"], r.think_correct, r.think_tokens, None, None,
                               overhead_tokens=r[f"rollout_tokens_k{k}"],
                               plain_answer_correct=r[f"rollout_majority_correct_k{k}"], tiebreak=r.tiebreak)
    return method.frontier(r[f"score_{router}"], r.think_correct, r.think_tokens, r.nothink_correct, r.nothink_tokens,
                           tiebreak=r.tiebreak)


def _target(r: pd.DataFrame) -> float:
    return r.think_correct.mean() - TOLERANCE


def _operating_point(val: pd.DataFrame, test: pd.DataFrame, router: str, k: int | None = None) -> dict:
    """tau chosen on the validation split (the cheapest threshold reaching the validation always-think accuracy
    minus 1 point), applied to the test split: the test's accuracy, tokens per query and think fraction there."""
    score = f"score_rollout_k{k}" if router == "rollout" else f"score_{router}"
    tau = method.threshold(_frontier(val, router, k), val[score], val.tiebreak, _target(val))
    think = method.route(test[score], test.tiebreak, tau)
    if router == "rollout":
        plain_c, plain_t = test[f"rollout_majority_correct_k{k}"], 0.0
        overhead = test[f"rollout_tokens_k{k}"]
    else:
        plain_c, plain_t, overhead = test.nothink_correct, test.nothink_tokens, 0.0
    correct = np.where(think, test.think_correct, plain_c).astype(float)
    tokens = np.where(think, test.think_tokens, plain_t) + overhead
    return {"accuracy": float(correct.mean()), "tokens": float(np.mean(tokens)), "think_fraction": float(think.mean())}


def chosen_k(val: pd.DataFrame) -> int:
    """The rollout baseline's k: the cheapest at the target accuracy on the validation split (ties: the smaller k)."""
    costs = {k: method.cost_to_reach(_frontier(val, "rollout", k), _target(val)) for k in rollout_ks(val)}
    return min(costs, key=lambda k: (costs[k], k))


def _splits(r: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return r.loc[r.split == "val"].reset_index(drop=True), r.loc[r.split == "test"].reset_index(drop=True)


def _spearman(a, b) -> float:
    return float(spearmanr(a, b).statistic) if np.std(a) > 0 else float("nan")


def table_main(rows: pd.DataFrame) -> pd.DataFrame:
    """Per router and seed, on the test split: Spearman with the steps, AUROC for no-think failure, and the accuracy,
    tokens per query and think fraction at the router's threshold tau chosen on the validation split; beside them the
    test frontier's own least tokens at the test target (an oracle operating point, reported only). Rollout routing
    uses the k chosen on validation (rows `rollout_k<k>` show every k); always / never think too."""
    out = []
    for seed, r in rows.groupby("seed"):
        val, test = _splits(r)
        fail = ~test.nothink_correct.astype(bool)
        k_star = chosen_k(val)
        entries = [(router, None) for router in ROUTERS if router != "rollout"]
        entries += [("rollout", k_star)] + [(f"rollout_k{k}", k) for k in rollout_ks(r)]
        for name, k in entries:
            router = "rollout" if name.startswith("rollout") else name
            score = test[f"score_rollout_k{k}"] if router == "rollout" else test[f"score_{router}"]
            point = _operating_point(val, test, router, k)
            out.append({"seed": seed, "router": name, "k": k if k else np.nan,
                        "spearman_steps": _spearman(score, test.steps),
                        "auroc_nothink_fail": method.auroc(score.to_numpy(), fail.to_numpy()),
                        "target_accuracy": _target(test), "tokens_at_tau": point["tokens"],
                        "accuracy_at_tau": point["accuracy"], "think_fraction_at_tau": point["think_fraction"],
                        "test_oracle_tokens": method.cost_to_reach(_frontier(test, router, k), _target(test))})
        for router, think in (("always_think", True), ("never_think", False)):
            key = "think" if think else "nothink"
            out.append({"seed": seed, "router": router, "k": np.nan, "spearman_steps": np.nan,
                        "auroc_nothink_fail": np.nan, "target_accuracy": _target(test),
                        "tokens_at_tau": test[f"{key}_tokens"].mean(), "accuracy_at_tau": test[f"{key}_correct"].mean(),
                        "think_fraction_at_tau": float(think), "test_oracle_tokens": test[f"{key}_tokens"].mean()})
    return pd.DataFrame(out)


def table_frontier(rows: pd.DataFrame, grid: int = 41) -> pd.DataFrame:
    """Seed-mean frontier of every router on the test split, on a grid of think fractions (rollouts: the k chosen on
    the validation split of each seed)."""
    out = []
    fractions = np.linspace(0, 1, grid)
    for router in ROUTERS:
        acc, tok = [], []
        for _, r in rows.groupby("seed"):
            val, test = _splits(r)
            front = _frontier(test, router, chosen_k(val) if router == "rollout" else None)
            acc.append(np.interp(fractions, front["think_fraction"], front["accuracy"]))
            tok.append(np.interp(fractions, front["think_fraction"], front["tokens"]))
        out += [{"router": router, "think_fraction": f, "accuracy": a, "tokens": t}
                for f, a, t in zip(fractions, np.mean(acc, 0), np.mean(tok, 0))]
    return pd.DataFrame(out)


def table_difficulty(rows: pd.DataFrame) -> pd.DataFrame:
    """Per difficulty level (test split): both routes' accuracy and tokens, and every score standardised over the test
    set (rollouts: the largest k)."""
    z = rows.loc[rows.split == "test"].copy()
    k = max(rollout_ks(z))
    z["score_rollout"], z["rollout_tokens"] = z[f"score_rollout_k{k}"], z[f"rollout_tokens_k{k}"]
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

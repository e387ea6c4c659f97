"""The convergence rule, the true-difficulty router (positive control) and the claims' positive controls."""

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from neurips26.papers.rldp import model as M
from neurips26.papers.rldp import paper_claims, tables
from neurips26.papers.rldp.experiments import truth_score


def test_convergence_rule():
    think_ok, think_bad = {1: 1.0, 2: 0.99}, {1: 1.0, 2: 0.90}
    assert M.converged(think_ok, 0.70, 0.695, 0.98, 0.01)          # think at target, no-think plateaued
    assert not M.converged(think_ok, 0.70, 0.60, 0.98, 0.01)       # no-think still improving
    assert not M.converged(think_bad, 0.70, 0.70, 0.98, 0.01)      # think below target at one level
    assert not M.converged(think_ok, 0.70, -1.0, 0.98, 0.01)       # first check: no previous accuracy yet
    assert M.converged(think_ok, 0.70, 0.10, 0.98, None)           # main's rule: the think route alone
    assert not M.converged(think_bad, 0.70, 0.70, 0.98, None)


def test_truth_score_orders_levels_and_breaks_ties():
    levels = np.repeat(np.arange(1, 7), 50)
    s = truth_score(levels, np.random.default_rng(0))
    assert (np.floor(s) == levels).all()  # never crosses a level
    assert len(np.unique(s)) == len(s)  # ties broken
    assert spearmanr(s, levels).statistic > 0.95


def _rows(seed: int) -> pd.DataFrame:
    """A synthetic test set: no-think fails more often at higher levels, think always right, tokens n + 3 vs 2."""
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 9, size=800)
    nothink = rng.random(800) > np.clip((n - 3) / 8, 0, 1)
    rows = pd.DataFrame({"seed": seed, "steps": n, "prompt_chars": n + rng.integers(0, 7, 800),
                         "think_correct": True, "think_tokens": n + 3, "nothink_correct": nothink, "nothink_tokens": 2,
                         "rollout_tokens": 8.0, "rollout_majority_correct": nothink,
                         "score_rollout": rng.random(800), "score_oracle": (~nothink).astype(float),
                         "score_truth": truth_score(n, rng)})
    rows["score_rldp"] = rows["score_random"] = rng.random(800)  # an uninformative RLDP
    rows["score_probe"] = n + rng.normal(0, 0.5, 800)
    rows["score_length"] = rows.prompt_chars.astype(float)
    return rows


def test_positive_controls_hold_where_the_uninformative_method_fails():
    main = tables.table_main(pd.concat([_rows(s) for s in range(3)], ignore_index=True))
    llm = pd.DataFrame({"router": ["rldp", "probe", "length", "random", "truth"], "spearman": [0.1, 0.9, 0.3, 0.0, 0.95],
                        "spearman_min": 0.0, "auroc": 0.5, "n_test": 100, "layer": "1"})
    timing = pd.DataFrame({"part": ["rldp_forward", "rollouts", "think", "nothink"], "seconds_per_1000": [1, 4, 3, 1]})
    claims, _ = paper_claims.build(main, llm, timing)
    out = {c.id: c.to_json() for c in claims}
    assert out["encodes_difficulty"]["holds"] is False and out["encodes_difficulty"]["positive_control"]["holds"] is True
    assert out["encodes_difficulty_llm"]["holds"] is False
    assert out["encodes_difficulty_llm"]["positive_control"]["holds"] is True
    assert out["efficiency_vs_rollout"]["positive_control"]["holds"] is True
    assert out["adaswitch_reaches_think"]["positive_control"]["holds"] is True

"""The convergence rule, the true-difficulty router (positive control) and the claims' positive controls."""

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from neurips26.common.registry import registered_claims
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


TIMING = pd.DataFrame({"part": ["rldp_forward", "rollouts", "think", "nothink"], "seconds_per_1000": [1, 4, 3, 1]})


def _llm(rldp: float) -> pd.DataFrame:
    """SmolLM2 per seed and router (tables/llm_seeds.csv): RLDP's Spearman near `rldp`, the probe's near 0.9."""
    base = {"rldp": rldp, "probe": 0.9, "length": 0.3, "random": 0.0, "truth": 0.95}
    return pd.DataFrame([{"seed": s, "router": r, "spearman": v + 0.01 * s, "auroc_college_vs_elementary": 0.5,
                          "n_test": 100, "layer": 1} for s in range(3) for r, v in base.items()])


def _verdicts(main: pd.DataFrame, llm: pd.DataFrame) -> dict:
    return {c.id: c.to_json("default", "embedded") for c in paper_claims.build(main, llm, TIMING)}


def test_positive_controls_pass_where_the_uninformative_method_fails():
    main = tables.table_main(pd.concat([_rows(s) for s in range(3)], ignore_index=True))
    out = _verdicts(main, _llm(0.1))
    for claim_id in ("encodes_difficulty", "encodes_difficulty_llm"):
        assert out[claim_id]["verdict"] == "fails"
        assert all(c["passed"] is True for c in out[claim_id]["controls"])
        assert set(out[claim_id]["per_seed"]) == {"0", "1", "2"}
    assert out["adaswitch_reaches_think"]["verdict"] != "holds"  # RLDP is the random router here
    positive = [c for c in out["efficiency_vs_rollout"]["controls"] if c["kind"] == "positive"]
    assert positive and all(c["passed"] is True for c in positive)


def _main(rldp_spearman: float, rldp_tokens: float, rollout_tokens: float) -> pd.DataFrame:
    """tables/main.csv by hand: per seed and router, Spearman with the level and tokens at the target accuracy."""
    routers = {"rldp": (rldp_spearman, rldp_tokens), "probe": (0.95, 4.8), "rollout": (0.7, rollout_tokens),
               "length": (0.6, 6.2), "random": (0.0, 6.5), "oracle": (0.7, 4.5), "truth": (0.98, 4.7),
               "always_think": (float("nan"), 6.5), "never_think": (float("nan"), 2.0)}
    jitter = [0.0, 0.02, -0.02]
    return pd.DataFrame([{"seed": s, "router": r, "spearman_steps": rho + j, "tokens_at_target": tok + j,
                          "accuracy_at_target": 0.99, "think_fraction_at_target": 0.6, "target_accuracy": 0.99}
                         for s, j in enumerate(jitter) for r, (rho, tok) in routers.items()])


def test_a_clear_win_holds():
    out = _verdicts(_main(0.9, 5.0, 7.0), _llm(0.85))
    assert set(out) == {c["id"] for c in registered_claims("rldp")["claims"]}
    assert {k: v["verdict"] for k, v in out.items()} == {
        "encodes_difficulty": "holds", "encodes_difficulty_llm": "holds", "adaswitch_reaches_think": "holds",
        "efficiency_vs_rollout": "holds"}


def test_a_clear_loss_fails_and_a_random_router_that_passes_makes_it_inconclusive():
    out = _verdicts(_main(0.1, 6.8, 7.0), _llm(0.1))
    assert out["encodes_difficulty"]["verdict"] == "fails"
    assert out["adaswitch_reaches_think"]["verdict"] == "fails"  # more tokens than always thinking
    assert out["efficiency_vs_rollout"]["verdict"] == "fails"  # 7.0 / 6.8 < 1.3
    # rollouts that cost more than always thinking: the random router passes the ratio test, so it says nothing
    out = _verdicts(_main(0.9, 5.0, 12.0), _llm(0.85))
    assert out["efficiency_vs_rollout"]["outcome"] == "holds"
    assert out["efficiency_vs_rollout"]["verdict"] == "inconclusive"
    assert "random_router" in out["efficiency_vs_rollout"]["why_inconclusive"]
    # below the deciding scale every verdict is inconclusive
    tiny = {c.id: c.to_json("tiny", "embedded") for c in paper_claims.build(_main(0.9, 5.0, 7.0), _llm(0.85), TIMING)}
    assert all(v["verdict"] == "inconclusive" and "scale=default" in v["why_inconclusive"] for v in tiny.values())


def test_the_model_seed_follows_the_run_seed():
    from neurips26.papers.rldp.experiments import model_seed

    assert model_seed(0) == model_seed(0) and model_seed(0) != model_seed(1)
    assert len({model_seed(s) for s in range(10)}) == 10

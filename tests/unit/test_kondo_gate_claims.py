"""kondo_gate claims (contract v2) from hand-made per-seed tables: a clear win holds, a clear loss fails, a tie at
ceiling is inconclusive, a failed positive control makes the zero-price claim inconclusive."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.registry import registered_claims
from neurips26.papers.kondo_gate import paper_claims
from neurips26.papers.kondo_gate.tables import table_bandit_seeds, table_main_seeds

SEEDS = (0, 1, 2)
CFG = OmegaConf.create({
    "bandit": {"baseline": "value"},
    "claims": {"keep_rate": 0.3, "quality_fraction": 0.95, "backward_reduction": 3.0, "stale_fraction": 0.9,
               "difficulty_keep_rate": 0.1}})


def main_runs(score: dict, hard_gain: dict | None = None) -> pd.DataFrame:
    """Per-seed runs (two evaluation steps each) of every method the claims read, on MNIST and reversal L4 / L12;
    `score[method]` the final score (+-0.005 over the seeds); `hard_gain[task]` delight - random at keep rate 0.1."""
    rows = []
    hard_gain = hard_gain or {"reversal_L4": 0.0, "reversal_L12": 0.2}
    for task in ("mnist", "reversal_L4", "reversal_L12"):
        for seed in SEEDS:
            jitter = 0.005 * (seed - 1)
            specs = [(m, 0.3, score[m]) for m in ("delight", "random", "additive", "stale_delight", "screen_delight")]
            specs += [("dg", 1.0, score["dg"]), ("delight", 0.1, 0.6 + hard_gain.get(task, 0.0)), ("random", 0.1, 0.6)]
            for method, rate, value in specs:
                for step in (80, 400):
                    rows.append({"task": task, "method": method, "keep_rate": rate, "price": np.nan, "seed": seed,
                                 "step": step, "score": value + jitter - (0.1 if step == 80 else 0.0),
                                 "backward_passes": 1000 * rate * step / 400, "backward_flops": 10.0 * rate,
                                 "screen_flops": 1.0 if method == "screen_delight" else 0.0})
    return pd.DataFrame(rows)


def bandit_runs(cosine: dict, control_noise_kept: float = 0.0) -> pd.DataFrame:
    rows = []
    for setting in ("main", "control"):
        for seed in SEEDS:
            jitter = 0.002 * (seed - 1)
            for method, rate, cos, signal, noise in [
                    ("delight", 0.3, cosine["delight"], 0.5, 0.3), ("random", 0.3, cosine["random"], 0.3, 0.3),
                    ("additive", 0.3, cosine["additive"], 0.4, 0.3), ("reinforce", 1.0, 0.7, 1.0, 1.0),
                    ("price0_delight", np.nan, 0.8 if setting == "main" else 0.99, 0.9,
                     0.5 if setting == "main" else control_noise_kept),
                    ("reinforce_batch_mean", 1.0, 0.6, 1.0, 1.0), ("price0_delight_batch_mean", np.nan, 0.65, 0.8, 0.7)]:
                rows.append({"task": "bandit", "seed": seed, "setting": setting, "method": method, "keep_rate": rate,
                             "kept_fraction": rate, "cosine": cos + jitter, "signal": signal, "noise": noise})
    return pd.DataFrame(rows)


GOOD = {"dg": 0.9, "delight": 0.89, "random": 0.8, "additive": 0.7, "stale_delight": 0.88, "screen_delight": 0.87}


def verdicts(main, bandit):
    claims = paper_claims.build(table_main_seeds(main), table_bandit_seeds(bandit), CFG)
    doc = {c.id: c.to_json("default", "embedded") for c in claims}
    return {k: d["verdict"] for k, d in doc.items()}, doc, doc["skips_backward_keeps_quality"]["measured"]


def test_claims_match_the_registered_list():
    _, doc, _ = verdicts(main_runs(GOOD), bandit_runs({"delight": 0.8, "random": 0.5, "additive": 0.6}))
    assert set(doc) == {c["id"] for c in registered_claims("kondo_gate")["claims"]}


def test_clear_wins_hold():
    v, doc, metrics = verdicts(main_runs(GOOD), bandit_runs({"delight": 0.8, "random": 0.5, "additive": 0.6}))
    for claim in ("skips_backward_keeps_quality", "delight_beats_random_and_additive", "gain_grows_with_difficulty",
                  "approximate_delight", "zero_price_removes_noise", "cheap_screen_model"):
        assert v[claim] == "holds", (claim, doc[claim].get("why_inconclusive"))
    test = doc["skips_backward_keeps_quality"]["tests"][0]
    assert test["name"] == "delight / DG score, mnist" and test["n"] == 3
    assert doc["skips_backward_keeps_quality"]["per_seed"]["1"]["delight / DG score, mnist"] == pytest.approx(0.89 / 0.9)
    assert doc["skips_backward_keeps_quality"]["per_seed"]["0"]["DG last-fifth gain, mnist"] == pytest.approx(0.1)
    assert all(c["passed"] for c in doc["zero_price_removes_noise"]["controls"])
    assert v["pareto_frontier"] == "inconclusive" and "price 0 only" in doc["pareto_frontier"]["why_inconclusive"]
    assert metrics["budget_dg_last_fifth_gain_mnist"] == pytest.approx(0.1)


def test_clear_losses_fail():
    bad = {"dg": 0.9, "delight": 0.6, "random": 0.8, "additive": 0.7, "stale_delight": 0.3, "screen_delight": 0.3}
    v, _, _ = verdicts(main_runs(bad, {"reversal_L4": 0.2, "reversal_L12": 0.0}),
                       bandit_runs({"delight": 0.4, "random": 0.5, "additive": 0.6}))
    for claim in ("skips_backward_keeps_quality", "delight_beats_random_and_additive", "gain_grows_with_difficulty",
                  "approximate_delight", "cheap_screen_model"):
        assert v[claim] == "fails", claim


def test_a_tie_at_ceiling_is_inconclusive_not_false():
    """Delight and additive both at 1.0 on every seed: the paired difference is 0, its interval [0, 0] is not above
    0, nor below: inconclusive (issue #67: a tie no run can break must not fail the claim)."""
    tie = {**GOOD, "delight": 1.0, "additive": 1.0, "random": 0.5}
    v, doc, _ = verdicts(main_runs(tie), bandit_runs({"delight": 0.8, "random": 0.5, "additive": 0.6}))
    assert v["delight_beats_random_and_additive"] == "inconclusive"
    outcomes = {t["name"]: t["outcome"] for t in doc["delight_beats_random_and_additive"]["tests"]}
    assert outcomes["MNIST score delight - additive"] == "inconclusive"
    assert outcomes["MNIST score delight - random"] == "holds"


def test_a_failed_positive_control_makes_the_zero_price_claim_inconclusive():
    """In the one-correct-arm control the price-0 gate keeps as much noise as signal: the test cannot be shown able
    to hold there, so the main-setting win is not a verdict."""
    v, doc, _ = verdicts(main_runs(GOOD), bandit_runs({"delight": 0.8, "random": 0.5, "additive": 0.6},
                                                      control_noise_kept=0.95))
    assert doc["zero_price_removes_noise"]["outcome"] == "holds"
    assert v["zero_price_removes_noise"] == "inconclusive"
    assert "one_correct_arm_noise" in doc["zero_price_removes_noise"]["why_inconclusive"]


def test_seed_tables_keep_each_seed_final_row():
    main = table_main_seeds(main_runs(GOOD))
    rows = main[(main.task == "mnist") & (main.method == "dg")]
    assert rows.seed.tolist() == [0, 1, 2] and rows.step.tolist() == [400] * 3
    assert rows.score.tolist() == pytest.approx([0.895, 0.9, 0.905])
    assert rows.last_fifth_gain.tolist() == pytest.approx([0.1] * 3)
    bandit = table_bandit_seeds(bandit_runs({"delight": 0.8, "random": 0.5, "additive": 0.6}))
    assert len(bandit) == 2 * 3 * 7

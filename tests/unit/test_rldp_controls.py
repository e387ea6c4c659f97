"""The convergence rule, the routers' controls (positive and negative), tau and k chosen on the validation split only,
the model seed following the run seed, and the claims' verdicts on synthetic tables."""

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from neurips26.common.pipeline.registry import registered_claims
from neurips26.papers.rldp import method, paper_claims, tables
from neurips26.papers.rldp import model as M
from neurips26.papers.rldp.experiments import truth_score

KS = (1, 2, 4, 8)


def test_convergence_rule():
    think_ok, think_bad = {1: 1.0, 2: 0.99}, {1: 1.0, 2: 0.90}
    assert M.converged(think_ok, 0.70, 0.695, 0.98, 0.01)          # think at target, no-think plateaued
    assert not M.converged(think_ok, 0.70, 0.60, 0.98, 0.01)       # no-think still improving
    assert not M.converged(think_bad, 0.70, 0.70, 0.98, 0.01)      # think below target at one level
    assert not M.converged(think_ok, 0.70, -1.0, 0.98, 0.01)       # first check: no previous accuracy yet
    assert M.converged(think_ok, 0.70, 0.10, 0.98, None)           # the think route alone (the other rule)
    assert not M.converged(think_bad, 0.70, 0.70, 0.98, None)


def test_truth_score_orders_levels_and_breaks_ties():
    levels = np.repeat(np.arange(1, 7), 50)
    s = truth_score(levels, np.random.default_rng(0))
    assert (np.floor(s) == levels).all()  # never crosses a level
    assert len(np.unique(s)) == len(s)  # ties broken
    assert spearmanr(s, levels).statistic > 0.95


def _split(seed: int, split: str, n: int = 800, rollout_cost: float = 2.0) -> pd.DataFrame:
    """A synthetic split: no-think fails more often at higher levels, think always right at 15 tokens against 2 (long
    reasoning traces); RLDP uninformative (uniform scores), as are prompt length and the surface probe; the probe and
    the truth router informative. Rollouts: k draws cost `rollout_cost` tokens each; for k > 1 their disagreement is a
    noisy reading of the level."""
    rng = np.random.default_rng(seed * 10 + (split == "test"))
    level = rng.integers(1, 9, size=n)
    nothink = rng.random(n) > np.clip((level - 3) / 8, 0, 1)
    rows = pd.DataFrame({"seed": seed, "split": split, "steps": level, "prompt_chars": rng.integers(5, 15, n),
                         "think_correct": True, "think_tokens": 15, "nothink_correct": nothink,
                         "nothink_tokens": 2, "score_oracle": (~nothink).astype(float),
                         "score_truth": truth_score(level, rng), "tiebreak": rng.random(n)})
    for k in KS:
        rows[f"score_rollout_k{k}"] = (level + rng.normal(0, 2, n)) * (k > 1)
        rows[f"rollout_tokens_k{k}"] = rollout_cost * k
        rows[f"rollout_majority_correct_k{k}"] = nothink
    for name in ("rldp", "random", "random_control"):
        rows[f"score_{name}"] = rng.random(n)  # RLDP is a random router here
    rows["score_probe"] = level + rng.normal(0, 0.5, n)
    rows["score_length"] = rows.prompt_chars.astype(float)
    rows["score_surface"] = rng.normal(0, 1, n)
    return rows


def _rows(seeds=range(3), **kw) -> pd.DataFrame:
    return pd.concat([_split(s, split, **kw) for s in seeds for split in ("val", "test")], ignore_index=True)


TIMING = pd.DataFrame({"part": ["rldp_forward", "rollout_sample", "think", "nothink"],
                       "seconds_per_1000": [1, 1, 3, 1]})


def _llm(rldp: float) -> pd.DataFrame:
    """SmolLM2 per seed and router (tables/llm_seeds.csv): RLDP's Spearman near `rldp`, the probe's near 0.9."""
    base = {"rldp": rldp, "probe": 0.9, "length": 0.3, "random": 0.0, "truth": 0.95}
    return pd.DataFrame([{"seed": s, "router": r, "spearman": v + 0.01 * s, "auroc_college_vs_elementary": 0.5,
                          "n_test": 100, "layer": 1} for s in range(3) for r, v in base.items()])


def _verdicts(main: pd.DataFrame, llm: pd.DataFrame, scale: str = "long") -> dict:
    """Verdicts at `scale` (long, on real data, by default, so that the LLM claim is not gated by its scale)."""
    return {c.id: c.to_json(scale, "real" if scale == "long" else "embedded")
            for c in paper_claims.build(main, llm, TIMING)}


def _tests(entry: dict) -> dict:
    return {t["name"]: t["outcome"] for t in entry["tests"]}


def test_positive_controls_pass_where_the_uninformative_method_fails():
    out = _verdicts(tables.table_main(_rows()), _llm(0.1))
    for claim_id in ("encodes_difficulty", "encodes_difficulty_llm"):
        assert out[claim_id]["verdict"] == "fails"
        assert set(out[claim_id]["per_seed"]) == {"0", "1", "2"}
    for claim_id in out:  # (whether rollout routing beats always-think is the next tests' subject)
        positive = [c for c in out[claim_id]["controls"] if c["kind"] == "positive" and c["id"] != "rollout_beats_think"]
        assert positive and all(c["passed"] is True for c in positive), claim_id


def test_a_random_router_fails_every_routing_criterion():
    """RLDP replaced by uniform scores: it does not beat the random router nor is it 1.3x cheaper than rollouts, the
    probe-share test fails, and the negative controls (a second random router, weak length / surface) pass."""
    out = _verdicts(tables.table_main(_rows()), _llm(0.85))
    assert _tests(out["encodes_difficulty"])["rldp Spearman - 0.8 x probe Spearman"] == "fails"
    assert _tests(out["adaswitch_reaches_think"])["rldp tokens - random tokens"] != "holds"
    assert out["adaswitch_reaches_think"]["verdict"] != "holds"
    assert _tests(out["efficiency_vs_rollout"])["rollout tokens / rldp tokens"] == "fails"
    assert out["efficiency_vs_rollout"]["verdict"] != "holds"
    for claim_id in ("encodes_difficulty", "adaswitch_reaches_think", "efficiency_vs_rollout"):
        negative = {c["id"]: c["passed"] for c in out[claim_id]["controls"] if c["kind"] == "negative"}
        assert negative == {"random_router": True, "length_router": True, "surface_router": True}, claim_id


def test_a_rollout_baseline_dominated_by_always_think_makes_efficiency_inconclusive():
    """Rollouts that cost more than thinking at every k: however well RLDP routes, the ratio says nothing."""
    perfect = {"score_rldp": lambda r: r.score_truth}  # a perfect RLDP: the ratio test itself holds
    out = _verdicts(tables.table_main(_rows(rollout_cost=40.0).assign(**perfect)), _llm(0.85))["efficiency_vs_rollout"]
    assert _tests(out)["rollout tokens / rldp tokens"] == "holds"
    assert out["verdict"] == "inconclusive" and "rollout_beats_think" in out["why_inconclusive"]
    # with cheap rollouts the same control passes (it can)
    cheap = _verdicts(tables.table_main(_rows(rollout_cost=0.5).assign(**perfect)), _llm(0.85))["efficiency_vs_rollout"]
    assert {c["id"]: c["passed"] for c in cheap["controls"]}["rollout_beats_think"] is True


def test_the_rollout_k_is_chosen_on_validation_and_is_the_cheapest_there():
    rows = _rows()
    main = tables.table_main(rows)
    for seed, r in rows.groupby("seed"):
        val = r.loc[r.split == "val"]
        costs = {k: method.cost_to_reach(tables._frontier(val, "rollout", k), tables._target(val)) for k in KS}
        k = int(main.loc[(main.seed == seed) & (main.router == "rollout"), "k"].iloc[0])
        assert costs[k] == min(costs.values())


def test_tau_never_touches_test_rows():
    """Test outcomes scrambled: every router's routing of the test queries (think fraction at tau) and the chosen k
    are unchanged; the same scramble of the validation rows changes them (the check can fail)."""
    rows = _rows()
    base = tables.table_main(rows).set_index(["seed", "router"])
    rng = np.random.default_rng(5)

    def scramble(split: str) -> pd.DataFrame:
        r = rows.copy()
        mask = r.split == split
        r.loc[mask, "nothink_correct"] = rng.random(mask.sum()) < 0.5
        for k in KS:
            r.loc[mask, f"rollout_majority_correct_k{k}"] = rng.random(mask.sum()) < 0.5
        return r

    routed = [r for r in base.index.get_level_values(1).unique() if r not in ("always_think", "never_think")]
    cols = ["think_fraction_at_tau", "k"]
    same = tables.table_main(scramble("test")).set_index(["seed", "router"])
    pd.testing.assert_frame_equal(same.loc[(slice(None), routed), cols], base.loc[(slice(None), routed), cols])
    moved = tables.table_main(scramble("val")).set_index(["seed", "router"])
    assert not np.allclose(moved.loc[(slice(None), routed), "think_fraction_at_tau"],
                           base.loc[(slice(None), routed), "think_fraction_at_tau"])


def test_threshold_transfers_the_validation_share_through_ties():
    """A tied score (prompt length) with the random tie-break: tau from one split sends the same share of the tied
    group to think on another split drawn alike."""
    rng = np.random.default_rng(1)
    score, tie = rng.integers(0, 3, 20000).astype(float), rng.random(20000)
    front = {"accuracy": np.r_[np.zeros(12000), np.ones(8001)], "tokens": np.arange(20001.0)}
    tau = method.threshold(front, score, tie, 1.0)
    assert method.route(score, tie, tau).sum() == 12000
    other, other_tie = rng.integers(0, 3, 20000).astype(float), rng.random(20000)
    assert abs(method.route(other, other_tie, tau).mean() - 0.6) < 0.02


def _main(rldp_spearman: float, rldp_tokens: float, rollout_tokens: float, surface=(0.3, 6.5)) -> pd.DataFrame:
    """tables/main.csv by hand: per seed and router, test Spearman with the level and test tokens at tau (each router
    with its own seed-to-seed noise, so that paired differences have a spread)."""
    routers = {"rldp": (rldp_spearman, rldp_tokens), "probe": (0.95, 4.8), "rollout": (0.7, rollout_tokens),
               "length": (0.3, 6.5), "surface": surface, "random": (0.0, 6.5), "random_control": (0.0, 6.5),
               "oracle": (0.7, 4.5), "truth": (0.98, 4.7), "always_think": (float("nan"), 7.5),
               "never_think": (float("nan"), 2.0)}
    jitter = [0.0, 0.02, -0.02]
    return pd.DataFrame([{"seed": s, "router": r, "k": 2.0 if r == "rollout" else np.nan,
                          "spearman_steps": rho + j * (1 + i % 3), "tokens_at_tau": tok + j * (1 + i % 4),
                          "accuracy_at_tau": 0.99, "think_fraction_at_tau": 0.6, "target_accuracy": 0.99}
                         for s, j in enumerate(jitter) for i, (r, (rho, tok)) in enumerate(routers.items())])


def test_a_clear_win_holds():
    out = _verdicts(_main(0.9, 5.0, 7.0), _llm(0.85))
    assert set(out) == {c["id"] for c in registered_claims("rldp")["claims"]}
    assert {k: v["verdict"] for k, v in out.items()} == {
        "encodes_difficulty": "holds", "encodes_difficulty_llm": "holds", "adaswitch_reaches_think": "holds",
        "efficiency_vs_rollout": "holds"}


def test_a_surface_probe_that_routes_as_well_makes_the_routing_claims_inconclusive():
    """Difficulty readable from the prompt's characters: RLDP's win says nothing about activations."""
    out = _verdicts(_main(0.9, 5.0, 7.0, surface=(0.9, 4.9)), _llm(0.85))
    for claim_id in ("encodes_difficulty", "adaswitch_reaches_think", "efficiency_vs_rollout"):
        assert out[claim_id]["verdict"] == "inconclusive", claim_id
        assert "surface_router" in out[claim_id]["why_inconclusive"], claim_id
    assert _tests(out["encodes_difficulty"])["rldp Spearman - surface probe Spearman"] != "holds"


def test_a_clear_loss_fails_and_the_deciding_scale_gates():
    out = _verdicts(_main(0.1, 6.8, 7.0), _llm(0.1))
    assert out["encodes_difficulty"]["verdict"] == "fails"
    assert out["adaswitch_reaches_think"]["verdict"] == "fails"  # more tokens than always thinking
    assert out["efficiency_vs_rollout"]["verdict"] == "fails"  # 7.0 / 6.8 < 1.3
    # rollouts that cost more than always thinking: the ratio is not evidence, whatever RLDP does
    out = _verdicts(_main(0.9, 5.0, 12.0), _llm(0.85))
    assert out["efficiency_vs_rollout"]["outcome"] == "holds"
    assert out["efficiency_vs_rollout"]["verdict"] == "inconclusive"
    assert "rollout_beats_think" in out["efficiency_vs_rollout"]["why_inconclusive"]
    # the LLM claim is decided at scale=long on real data: at default it is inconclusive, the others are decided
    default = _verdicts(_main(0.9, 5.0, 7.0), _llm(0.85), scale="default")
    assert default["encodes_difficulty_llm"]["verdict"] == "inconclusive"
    assert "scale=long" in default["encodes_difficulty_llm"]["why_inconclusive"]
    assert default["encodes_difficulty"]["verdict"] == "holds"
    tiny = _verdicts(_main(0.9, 5.0, 7.0), _llm(0.85), scale="tiny")
    assert all(v["verdict"] == "inconclusive" and "scale=" in v["why_inconclusive"] for v in tiny.values())


class _Net:
    def state_dict(self):
        return {}


def test_the_model_seed_follows_the_run_seed(monkeypatch):
    """experiments.train trains each run seed's decoder with its own derived seed (never a fixed model seed)."""
    from neurips26.papers.rldp import experiments

    assert experiments.model_seed(0) == experiments.model_seed(0)
    assert len({experiments.model_seed(s) for s in range(10)}) == 10
    used = []
    monkeypatch.setattr(experiments.M, "train", lambda cfg, task, seed, log: (used.append(seed) or _Net(), []))
    cfg = type("Cfg", (), {"model": None, "task": None})()
    for seed in (0, 1, 2):
        experiments.train(cfg, seed)
    assert used == [experiments.model_seed(s) for s in (0, 1, 2)] and len(set(used)) == 3

"""The abstract's and the brief's claims as tests over per-seed statistics (claims contract v2; design in JOURNAL.md).

Each seed is an independent replication (its own evaluation and training reports, its own trained policy), so every
statistic is computed per seed from that seed's episode rows with the table function the tables use
(`tables.mmlb_style`), and the seeds give the t interval. Bounds are the ones the criteria used before v2 (fixed before
the final run). The MMLongBench-Doc numbers need the real benchmark and VLMs: decided at `scale=paper data=real`.
"""

from __future__ import annotations

import pandas as pd

from neurips26.common.pipeline.claims import Claim, RuleTest, SeedTest, paired
from neurips26.papers.docatlas import tables

MAIN = ["tables/mmlb_style.csv", "figures/acc_vs_budget.png"]
ABLATIONS = ("no_notes", "no_review", "no_refine")
HARNESS_AGENTS = ["harness", *ABLATIONS, "rl_policy"]


def _per_seed(episodes: pd.DataFrame) -> pd.DataFrame:
    """tables.mmlb_style on each seed's episodes alone: one row per (seed, corpus, agent, budget)."""
    return pd.concat([tables.mmlb_style(group).assign(seed=int(seed)) for seed, group in episodes.groupby("seed")],
                     ignore_index=True)


def _acc(per_seed: pd.DataFrame, corpus: str, agent: str, budget, col: str = "acc") -> pd.Series:
    """{seed: value} of one (corpus, agent, budget) cell."""
    rows = per_seed[(per_seed["corpus"] == corpus) & (per_seed["agent"] == agent) & (per_seed["budget"] == budget)]
    return pd.Series(dict(zip(rows["seed"].astype(int), rows[col].astype(float))), dtype=float)


def _ordering(per_seed: pd.DataFrame, corpus: str, only=None) -> Claim:
    budgets = sorted(b for b in per_seed.loc[per_seed["corpus"] == corpus, "budget"].unique()
                     if only is None or b in set(only))
    tests, extra = [], {}
    for b in budgets:
        harness, rag, direct = (_acc(per_seed, corpus, a, b) for a in ("harness", "static_rag", "direct"))
        tests += [SeedTest(f"harness - static_rag, B={int(b)}", paired(harness, rag), ">", 0.0),
                  SeedTest(f"static_rag - direct, B={int(b)}", paired(rag, direct), ">", 0.0)]
        extra.update({f"harness B={int(b)}": harness, f"static_rag B={int(b)}": rag, f"direct B={int(b)}": direct})
    name = "generated report PDFs" if corpus == "generated" else "the real R manuals (r-doc-pdf)"
    grid = "every budget of the grid" if only is None else f"budgets {', '.join(str(int(b)) for b in budgets)}"
    return Claim(
        f"harness_beats_rag_beats_direct_{corpus}",
        f"at equal context budget the harness beats static top-k RAG, which beats direct input ({name}, {grid}; "
        "direct input = the first B tokens, as the brief defines it)",
        f"per seed and budget ({grid}), paired accuracy differences harness - static RAG and static RAG - direct "
        "input: each 95% t interval above 0 (two tests per budget, all must hold)",
        tests, MAIN,
        {"value": None, "where": "brief's criterion; the paper's comparison is on MMLongBench-Doc with VLMs "
                                 "(see mmlongbench_headline, rl_compact_vs_direct)"},
        source="brief", per_seed=extra)


def _rl(per_seed: pd.DataFrame, budget: int) -> Claim:
    rl = {c: _acc(per_seed, "generated", "rl_policy", budget, c) for c in ("acc", "single", "cross", "steps")}
    rule = {c: _acc(per_seed, "generated", "harness", budget, c) for c in ("acc", "single", "cross", "steps")}
    gain_cross, gain_single = paired(rl["cross"], rule["cross"]), paired(rl["single"], rule["single"])
    return Claim(
        "rl_policy_beats_rule",
        "a compact tool policy trained end to end with RL on the harness beats the rule controller, most on "
        "cross-page questions (generated reports, main budget)",
        f"per seed at B={budget}: paired accuracy difference RL policy - rule controller with 95% t interval above 0, "
        "and (cross-page gain - single-page gain) with 95% t interval above 0",
        [SeedTest("rl_policy - harness accuracy", paired(rl["acc"], rule["acc"]), ">", 0.0),
         SeedTest("cross-page gain - single-page gain", paired(gain_cross, gain_single), ">", 0.0)],
        ["tables/mmlb_style.csv", "tables/rl_curve.csv", "figures/rl_curve.png"],
        {"value": None, "where": "brief's criterion (the paper's RL claim is rl_compact_vs_direct)"},
        source="brief",
        per_seed={"rl_policy acc": rl["acc"], "harness acc": rule["acc"], "rl_policy steps": rl["steps"],
                  "harness steps": rule["steps"]})


def _ablations(per_seed: pd.DataFrame, budget: int) -> Claim:
    harness = _acc(per_seed, "generated", "harness", budget)
    return Claim(
        "each_ablation_lowers_accuracy",
        "removing notes (working memory), review or query refinement (self-improving retrieval) from the harness "
        "lowers accuracy (generated reports, main budget)",
        f"per seed at B={budget}: paired accuracy difference harness - each ablation (no notes, no review, no "
        "refine): each 95% t interval above 0 (three tests, all must hold)",
        [SeedTest(f"harness - {a} accuracy", paired(harness, _acc(per_seed, "generated", a, budget)), ">", 0.0)
         for a in ABLATIONS],
        ["tables/ablation.csv", "figures/ablation.png"],
        {"value": None, "where": "abstract (the components); the paper's ablation table"},
        per_seed={"harness acc": harness})


def _budget(per_seed: pd.DataFrame) -> Claim:
    rows = per_seed[per_seed["agent"].isin(HARNESS_AGENTS)]
    ratio = rows["max_obs_tokens"] / rows["budget"]
    by_seed = ratio.groupby(rows["seed"]).max()
    return Claim(
        "fixed_context_budget", "the harness shows the agent at most B tokens per step (a construction check: "
        "DocAtlasEnv._observe trims every observation to B)",
        "largest observation over budget, over every harness agent, budget and seed: holds if <= 1, fails if > 1",
        [RuleTest("max observation tokens / budget", {"max_obs_tokens_over_budget": ratio.max()},
                  "max_obs_tokens_over_budget <= 1", "max_obs_tokens_over_budget > 1",
                  rule="the largest ratio over all harness episodes of all seeds (a bound, not a mean)",
                  per_seed=by_seed)],
        ["tables/mmlb_style.csv"], {"value": None, "where": "abstract: 'under a fixed context budget'"},
        kind="sanity")


def _not_tested(claim_id: str, statement: str, value, where: str, why: str) -> Claim:
    return Claim(claim_id, statement, "no test: " + why, [], ["tables/mmlb_style.csv"],
                 {"value": value, "where": where}, decided_at="paper", decided_data="real", why_not_tested=why)


def build(episodes: pd.DataFrame, curve: pd.DataFrame, cfg) -> tuple[list[Claim], dict]:
    """`episodes`: every seed's episode rows (runs/seed*/episodes.csv); `curve`: tables/rl_curve.csv."""
    per_seed = _per_seed(episodes)
    claims = [_ordering(per_seed, "generated")]
    if "r_manuals" in set(per_seed["corpus"]):
        claims.append(_ordering(per_seed, "r_manuals", cfg.manuals.get("claim_budgets")))
    claims += [
        _rl(per_seed, int(cfg.main_budget)),
        _ablations(per_seed, int(cfg.main_budget)),
        _budget(per_seed),
        _not_tested(
            "mmlongbench_headline", "With GPT-5.4, DocAtlas reaches 71.4% on MMLongBench-Doc, exceeding the "
            "human-expert reference of 65.8%", 0.714, "abstract (human-expert reference 65.8%)",
            "needs MMLongBench-Doc (yubo2333/MMLongBench-Doc; data=real is not wired, the run stage refuses it) and "
            "GPT-5.4 driving the harness; no VLM runs offline (issue #57 items 5-6)"),
        _not_tested(
            "rl_compact_vs_direct", "A Qwen3.5-4B VLM trained with end-to-end RL in the DocAtlas environment reaches "
            "63.7%, compared with a 54.4% direct-input baseline", 0.637, "abstract (direct-input baseline 54.4%)",
            "needs a compact VLM (Qwen3.5-4B) trained with RL in the harness and the same model on the whole document "
            "on MMLongBench-Doc; the embedded agents use an extractive slot reader and a first-B-tokens direct "
            "input, which is not the paper's baseline (issue #57 items 2, 3, 5)"),
    ]
    last = curve[curve["last_tenth"]]
    first = curve[curve["update"] < len(last)]
    metrics = {"rl.reward_first_tenth": first["reward"].mean(), "rl.reward_last_tenth": last["reward"].mean(),
               "rl.updates": int(len(curve)), "rl.converged_seeds": int(curve["converged_seeds"].iloc[0])}
    return claims, metrics

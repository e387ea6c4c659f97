"""ensemble_mi's LLM-pool statistic (llms_strongly_correlated): members grouped by model key, the tetrachoric error
correlation across models high when errors are shared and near 0 when independent, and the claim's verdict with its
controls (within-model near copies must pass, decorrelated members must fail)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from neurips26.papers.ensemble_mi import experiments
from neurips26.papers.ensemble_mi.paper_claims import _llms_correlated


def _cfg(models):
    return OmegaConf.create({"llm_pool": {"enabled": True, "models": {k: f"org/{k}" for k in models}}})


def test_members_are_grouped_by_the_longest_matching_model_key():
    members = ["qwen_zero_answer", "qwen_7b_zero_answer", "qwen_7b_fewshot_answer", "classic_lr"]
    assert experiments.pool_models(_cfg(["qwen", "qwen_7b"]), members) == {"qwen": [0], "qwen_7b": [1, 2]}
    disabled = OmegaConf.create({"llm_pool": {"enabled": False, "models": {"qwen": "org/q"}}})
    assert experiments.pool_models(disabled, members) == {}


def _predictions(shared: bool, rng, n=4000, models=3, prompts=2):
    """Binary task; each member errs on 25% of rows: where a latent difficulty is high (shared across members) or
    independently per member."""
    y = rng.integers(0, 2, n)
    hard = rng.normal(size=n)
    cols = []
    for _ in range(models * prompts):
        score = 0.9 * hard + np.sqrt(1 - 0.81) * rng.normal(size=n) if shared else rng.normal(size=n)
        wrong = score > np.quantile(score, 0.75)
        cols.append(np.where(wrong, 1 - y, y))
    groups = {f"m{k}": list(range(k * prompts, (k + 1) * prompts)) for k in range(models)}
    return y, np.column_stack(cols), groups


def test_cross_model_correlation_separates_shared_from_independent_errors():
    rng = np.random.default_rng(0)
    y, preds, groups = _predictions(True, rng)
    shared = experiments.pair_correlations(y, preds, groups)
    y2, preds2, _ = _predictions(False, rng)
    independent = experiments.pair_correlations(y2, preds2, groups)
    assert shared["cross_model"] > 0.7 and independent["cross_model"] < 0.1


def _runs(cross, within, indep, seeds=3, splits=3):
    rows = [
        {"task": "imdb_llm_corr", "method": m, "mean_pair_rho": v + 0.01 * (s - 1), "seed": s, "split": h}
        for s in range(seeds)
        for h in range(splits)
        for m, v in (("cross_model", cross), ("within_model", within), ("cross_model_indep", indep))
    ]
    return pd.DataFrame(rows)


def _verdict(claim):
    return claim.to_json("paper", "real")["verdict"]


def test_the_claim_holds_fails_and_is_gated_by_its_controls():
    assert _verdict(_llms_correlated(_runs(0.7, 0.9, 0.02), ["imdb"], 0.5)) == "holds"
    assert _verdict(_llms_correlated(_runs(0.2, 0.9, 0.02), ["imdb"], 0.5)) == "fails"
    # decorrelated members still "strongly correlated": the statistic measures something else; no verdict
    assert _verdict(_llms_correlated(_runs(0.7, 0.9, 0.8), ["imdb"], 0.5)) == "inconclusive"
    # one model's own prompts not correlated either: the statistic cannot see correlation; no verdict
    assert _verdict(_llms_correlated(_runs(0.2, 0.3, 0.02), ["imdb"], 0.5)) == "inconclusive"
    untested = _llms_correlated(pd.DataFrame(columns=["task"]), [], 0.5).to_json("paper", "real")
    assert untested["verdict"] == "inconclusive" and "llm_pool" in untested["why_inconclusive"]
    at_default = _llms_correlated(_runs(0.7, 0.9, 0.02), ["imdb"], 0.5).to_json("default", "embedded")
    assert at_default["verdict"] == "inconclusive"  # decided at scale=paper data=real only


def test_a_real_run_with_pool_members_writes_the_correlation_rows(repo_root):
    from neurips26.common.pipeline.config import compose

    rng = np.random.default_rng(1)
    y, preds, groups = _predictions(True, rng, n=300)
    names = [f"{key}_zero_p{i}" for key, idx in groups.items() for i in range(len(idx))] + ["classic_lr"]
    frame = pd.DataFrame(np.column_stack([preds, y]), columns=names).assign(row=np.arange(300), y=y)
    pool = [f"+llm_pool.models.{key}=org/{key}" for key in groups]
    cfg = compose("ensemble_mi", ["scale=tiny", "llm_pool.enabled=true", *pool], root=repo_root)
    runs = experiments.run_real(cfg, "imdb", frame, 0)
    corr = runs[runs.task == "imdb_llm_corr"]
    assert set(corr.method) == {"cross_model", "within_model", "cross_model_indep"}
    assert (corr[corr.method == "cross_model"].mean_pair_rho > 0.5).all()
    assert (corr[corr.method == "cross_model_indep"].mean_pair_rho < 0.3).all()
    without = experiments.run_real(compose("ensemble_mi", ["scale=tiny"], root=repo_root), "imdb", frame, 0)
    assert not without.task.str.endswith("_llm_corr").any()

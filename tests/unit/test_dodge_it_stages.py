"""Stage plumbing: data: real is refused cleanly, tables and claims are computed from synthetic episode tables."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.errors import UserError
from neurips26.common.stage import StageContext
from neurips26.papers.dodge_it import paper_claims, tables
from neurips26.papers.dodge_it.stages import STAGES


@pytest.fixture
def cfg():
    base = OmegaConf.load(Path(__file__).parents[2] / "config" / "dodge_it" / "config.yaml")
    base.pop("defaults")
    return OmegaConf.merge(base, OmegaConf.load(Path(__file__).parents[2] / "config/dodge_it/scale/tiny.yaml"))


def test_real_data_is_refused_with_a_clear_error(cfg, tmp_path):
    cfg.data = "real"
    out = [tmp_path / "bc.npz", tmp_path / "bc.csv"]
    with pytest.raises(UserError, match="not wired"):
        STAGES["run_bc"](StageContext("dodge_it", cfg, [], out, 0))
    assert not any(p.exists() for p in out)


def test_eval_rejects_a_wrong_policy_file(cfg, tmp_path):
    bad = tmp_path / "policy.pt"
    bad.write_bytes(b"not a policy")
    with pytest.raises(UserError, match="policy .npz"):
        STAGES["run_eval"](StageContext("dodge_it", cfg, [bad] * 3, [tmp_path / "e.csv", tmp_path / "f.npz"], 0))


def _episodes(rates: dict) -> pd.DataFrame:
    """Synthetic episodes: per method (success rate, collision rate), 100 episodes per level and seed."""
    rows = []
    for seed in (0, 1):
        for method, (sr, col) in rates.items():
            for level in (1, 2):
                for i in range(100):
                    hit = int(i < 100 * col)
                    rows.append({"seed": seed, "method": method, "layout": i, "level": level,
                                 "success": int(i >= 100 - 100 * sr), "steps": 20 + (10 if method == "bc_cbf" else 0),
                                 "contact": hit, "displacement": 0.01 * hit, "collision_ref": hit,
                                 "trace_collision": hit if i % 50 else 1 - hit, "relevance_correct": 1})
    return pd.DataFrame(rows)


def test_claims_are_computed_from_the_tables():
    rates = {"expert": (0.9, 1.0), "avoider": (1.0, 0.0), "bc": (0.9, 0.9), "success_rl": (0.9, 0.8),
             "dodge_rl": (0.92, 0.3), "bc_cbf": (0.85, 0.05), "potential_field": (0.5, 0.0)}
    episodes = _episodes(rates)
    proxy = tables.safelibero_proxy(episodes)
    dodge = proxy[(proxy.method == "dodge_rl") & (proxy.level == "all")].iloc[0]
    assert dodge["sr"] == pytest.approx(92) and dodge["car"] == pytest.approx(70)
    agreement = tables.trace_vs_contacts(episodes)
    claims, metrics = paper_claims.build(proxy, agreement, tables.per_seed(episodes))
    verdicts = {c.id: c.to_json()["holds"] for c in claims}
    assert verdicts["dodge_vs_success_rl"] is True and verdicts["safety_filter_costs"] is True
    assert verdicts["vla_safelibero_real"] is None
    row = agreement[(agreement.method == "all") & (agreement.detector == "trace")].iloc[0]
    truth, pred = episodes.contact == 1, episodes.trace_collision == 1
    assert row["precision"] == pytest.approx((truth & pred).sum() / pred.sum())
    assert row["recall"] == pytest.approx((truth & pred).sum() / truth.sum())
    assert metrics["dodge_vs_success_rl.seed0.holds"] is True
    rates["dodge_rl"] = (0.8, 0.3)  # avoidance bought with task failures (SR -10 points): the claim must fail
    proxy = tables.safelibero_proxy(_episodes(rates))
    assert paper_claims.build(proxy, agreement, tables.per_seed(_episodes(rates)))[0][0].to_json()["holds"] is False


def test_rl_curves_average_over_seeds():
    curves = pd.DataFrame({"seed": [0, 1, 0, 1], "reward_kind": "dodge", "iteration": [1, 1, 2, 2],
                           "episodes": [64, 64, 128, 128], "reward": [0.2, 0.4, 0.6, 0.8],
                           "success": [1.0, 0.8, 0.9, 0.9], "collision_ref": [1.0, 0.5, 0.5, 0.3],
                           "trace_collision": [1.0, 0.5, 0.5, 0.3], "loss": 0.0})
    out = tables.rl_curves(curves)
    assert np.allclose(out["reward"], [0.3, 0.7]) and np.allclose(out["collision_ref_seed_sd"], [0.25, 0.1])

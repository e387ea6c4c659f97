"""mental_imagery: tables and claims from synthetic per-seed runs (verdicts follow the numbers), and clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.errors import UserError
from neurips26.common.stage import StageContext
from neurips26.papers.mental_imagery import paper_claims, stages, tables

FAMS = tables.FAMILIES


def synthetic_runs(solve: dict, probe_gain: float, blind: float = 0.2, given: float = 0.9) -> pd.DataFrame:
    rows = []
    for variant, rate in solve.items():
        for seed in (0, 1):
            rows.append((variant, seed, "steps", "all", -1, -1, 500 + seed, 0))
            for f in FAMS:
                rows.append((variant, seed, "blind_solve_rate", f, -1, -1, blind, 10))
                if variant == "C":
                    rows.append((variant, seed, "given_board_acc_all", f, 2, -1, given, 10))
                    rows.append((variant, seed, "given_board_acc", f, 2, 1, given, 10))
                rows.append((variant, seed, "solve_rate", f, -1, -1, rate + (0.3 if f == "jigsaw" and variant == "C"
                                                                              else 0.0), 10))
                rows.append((variant, seed, "first_action_acc", f, -1, -1, rate + 0.1, 10))
                rows.append((variant, seed, "blind_first_action_acc", f, -1, -1, 0.3, 10))
                rows.append((variant, seed, "copy_acc", f, -1, 1, 0.8, 10))
                gain = probe_gain[seed] if isinstance(probe_gain, tuple) else probe_gain
                for kind, acc in [("trained", 0.8 + gain), ("untrained", 0.8), ("shuffled", 0.75),
                                  ("start_only", 0.8), ("oracle", 1.0), ("random_code", given)]:
                    for layer in (0, 1):
                        rows.append((variant, seed, f"{kind}_acc_all", f, layer, -1, acc - 0.01 * layer, 10))
                        rows.append((variant, seed, f"{kind}_acc", f, layer, 1, acc - 0.01 * layer, 10))
                        rows.append((variant, seed, f"{kind}_changed_acc", f, layer, 1, 0.5, 3))
    return pd.DataFrame(rows, columns=["variant", "seed", "metric", "family", "layer", "step", "value", "n"])


def verdicts(runs, cap: int = 1000):
    cfg = OmegaConf.create({"train": {"max_steps": cap}, "probe": {"seed_interval": 0.95}})
    claims, _ = paper_claims.build(tables.table_solve(runs), tables.table_probe(runs), tables.table_probe_seeds(runs),
                                   cfg)
    return {c.id: c.to_json()["holds"] for c in claims}, {c.id: c.to_json() for c in claims}


def test_variant_comparisons_wait_for_converged_runs():
    """A seed of A, B or C at the step cap (synthetic runs take 500 and 501 steps) leaves the two comparisons untested,
    with the comparison still measured; learns_puzzles and the probe claim keep their verdicts."""
    runs = synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05)
    v, doc = verdicts(runs, cap=501)
    assert v["visual_supervision_or_tokens_help"] is None and v["gains_on_jigsaw_rotation"] is None
    assert "A, B, C trained to the fine-tuning cap" in doc["visual_supervision_or_tokens_help"]["why_untested"]
    assert doc["visual_supervision_or_tokens_help"]["measured"]["mean_B"] == pytest.approx(0.65)
    assert doc["gains_on_jigsaw_rotation"]["measured"]["steps_max_C"] == 501
    assert v["learns_puzzles"] is True and v["probes_decode_state"] is True
    one = runs[~((runs.variant == "B") & (runs.metric == "steps") & (runs.seed == 1))]
    v, doc = verdicts(one, cap=501)  # B's seeds stopped early; A and C still have a capped seed
    assert "variant(s) A, C trained" in doc["gains_on_jigsaw_rotation"]["why_untested"]
    v, _ = verdicts(runs, cap=502)
    assert v["visual_supervision_or_tokens_help"] is True and v["gains_on_jigsaw_rotation"] is False


def test_verdicts_follow_the_numbers():
    v, doc = verdicts(synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05))
    assert v == {"learns_puzzles": True, "probes_decode_state": True, "visual_supervision_or_tokens_help": True,
                 "gains_on_jigsaw_rotation": False, "twelve_tasks_pretrained_vlm": None}  # rotation gain is 0
    assert doc["probes_decode_state"]["positive_control"]["holds"] is True
    assert doc["learns_puzzles"]["measured"]["min_margin_over_blind"] == pytest.approx(0.4)
    v, doc = verdicts(synthetic_runs({"A": 0.4, "B": 0.3, "C": 0.5}, probe_gain=0.0, given=0.7))
    assert not v["learns_puzzles"] and not v["probes_decode_state"] and not v["visual_supervision_or_tokens_help"]
    assert doc["probes_decode_state"]["positive_control"]["holds"] is False  # random_code 0.7 < copy 0.8
    v, _ = verdicts(synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05, blind=0.55))
    assert not v["learns_puzzles"]  # mean above 0.5 but not clearly above the blind policy


def test_probe_verdict_reads_seed_intervals():
    """Margins over the untrained probe of +0.05 and -0.01 on the two seeds: the mean (+0.02) is positive but its
    interval straddles 0, so the claim is untested; +0.05 and +0.049 hold; -0.05 and -0.049 fail. The t interval with two
    seeds is mean -/+ 12.706 * sd / sqrt(2)."""
    v, doc = verdicts(synthetic_runs({"A": 0.6, "B": 0.6, "C": 0.6}, probe_gain=(0.05, -0.01)))
    measured = doc["probes_decode_state"]["measured"]
    assert v["probes_decode_state"] is None and "straddles 0" in doc["probes_decode_state"]["why_untested"]
    assert measured["min_margin_over_untrained"] == pytest.approx(0.02)
    half = 12.7062047 * np.std([0.05, -0.01], ddof=1) / np.sqrt(2)
    assert measured["min_margin_over_untrained_lo"] == pytest.approx(0.02 - half, abs=1e-6)
    assert measured["min_margin_over_untrained_hi"] == pytest.approx(0.02 + half, abs=1e-6)
    abc = {"A": 0.6, "B": 0.6, "C": 0.6}
    assert verdicts(synthetic_runs(abc, probe_gain=(0.05, 0.049)))[0]["probes_decode_state"] is True
    assert verdicts(synthetic_runs(abc, probe_gain=(-0.05, -0.049)))[0]["probes_decode_state"] is False


def test_probe_seed_table_keeps_each_seed():
    t = tables.table_probe_seeds(synthetic_runs({"A": 0.6}, probe_gain=(0.05, -0.01)))
    trained = t[(t.kind == "trained") & (t.family == "sokoban")].set_index("seed")["acc"]
    assert trained[0] == pytest.approx(0.85) and trained[1] == pytest.approx(0.79)


def test_solve_table_means_over_families_and_seeds():
    t = tables.table_solve(synthetic_runs({"A": 0.6, "C": 0.6}, 0.0)).set_index(["family", "variant"])
    assert t.loc[("mean", "C"), "solve_rate"] == pytest.approx(0.6 + 0.3 / 5)
    assert t.loc[("jigsaw", "A"), "seeds"] == 2
    assert t.loc[("mean", "blind"), "solve_rate"] == pytest.approx(0.2)
    assert t.loc[("mean", "C"), "steps"] == pytest.approx(500.5) and t.loc[("mean", "C"), "steps_max"] == 501
    assert t.loc[("sokoban", "A"), "first_action"] == pytest.approx(0.7)
    assert t.loc[("mean", "blind"), "first_action"] == pytest.approx(0.3)


def test_stages_name_what_is_wrong(tmp_path):
    cfg = OmegaConf.create({"data": "embedded"})
    with pytest.raises(UserError, match="solve.csv probe.csv"):
        stages.STAGES["claims"](StageContext("mental_imagery", cfg, inputs=[tmp_path / "x.csv"]))
    with pytest.raises(UserError, match="rush_hour_18k"):
        stages.puzzles(StageContext("mental_imagery", cfg, inputs=[tmp_path / "a"], outputs=[tmp_path / "b"], seed=0))
    with pytest.raises(UserError, match="PUZZLES.npz"):
        stages.run(StageContext("mental_imagery", cfg, inputs=[tmp_path / "a"], outputs=[tmp_path / "b"], seed=0))
    with pytest.raises(UserError, match="mental_imagery_puzzles rule"):
        stages.run(StageContext("mental_imagery", cfg, inputs=[tmp_path / "a.npz", tmp_path / "p.npz"],
                                outputs=[tmp_path / "b.csv", tmp_path / "c.csv"], seed=0))
    with pytest.raises(UserError, match="PRETRAIN.npz"):
        stages.run(StageContext("mental_imagery", cfg, inputs=[tmp_path / "a.npz"],
                                outputs=[tmp_path / "b.csv", tmp_path / "c.csv"], seed=0))
    with pytest.raises(UserError, match="not wired"):
        stages.run(StageContext("mental_imagery", OmegaConf.create({"data": "real"}), seed=0))


def test_probe_claim_reads_the_pretrained_control_and_the_random_code_positive_control():
    """With VLM pretraining the untrained control is the stronger of the random and the pretrained-only model; the
    positive control is random_code (a d-dimensional code of the true board)."""
    runs = synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05, given=0.95)
    extra = []
    for seed in (0, 1):
        for f in FAMS:
            extra.append(("A", seed, "pretrained_acc_all", f, 0, -1, 0.9, 10))
            extra.append(("A", seed, "pretrained_acc", f, 0, 1, 0.9, 10))
    runs2 = pd.concat([runs, pd.DataFrame(extra, columns=runs.columns)], ignore_index=True)
    v, doc = verdicts(runs2)
    assert not v["probes_decode_state"]  # trained 0.85 < pretrained-only 0.9
    pc = doc["probes_decode_state"]["positive_control"]
    assert pc["holds"] is True and pc["measured"]["min_margin_over_untrained"] == pytest.approx(0.05)
    assert doc["probes_decode_state"]["measured"]["min_margin_over_untrained"] == pytest.approx(-0.05)
    v, _ = verdicts(runs)  # without the pretrained-only model: the random model is the untrained control
    assert v["probes_decode_state"]

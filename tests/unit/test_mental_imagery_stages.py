"""mental_imagery: tables and claims from synthetic per-seed runs (verdicts follow the numbers), and clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.stage import StageContext
from neurips26.papers.mental_imagery import paper_claims, stages, tables

FAMS = tables.FAMILIES


SEEDS = (0, 1, 2)


def _at(value, seed):
    return value[seed] if isinstance(value, tuple) else value


def synthetic_runs(solve: dict, probe_gain, blind: float = 0.2, given=0.9, jigsaw_c: float = 0.3,
                   rotation_c: float = -0.1, given_z=0.95) -> pd.DataFrame:
    """Runs of three seeds; `probe_gain` and `given` (random_code's accuracy) a number or one value per seed (probe rows
    for variant A only); the solve rates vary by +-0.01 over the seeds (the same for every variant); C gains `jigsaw_c`
    on jigsaw, `rotation_c` on rotation."""
    rows = []
    for variant, rate in solve.items():  # given_z: C's solve rate with the true visual tokens, every family
        for seed in SEEDS:
            rows.append((variant, seed, "steps", "all", -1, -1, 500 + seed, 0))
            jitter = 0.01 * (seed - 1)
            for f in FAMS:
                rows.append((variant, seed, "blind_solve_rate", f, -1, -1, blind, 10))
                if variant == "C":
                    rows.append((variant, seed, "given_board_acc_all", f, 2, -1, 0.9, 10))
                    rows.append((variant, seed, "given_board_acc", f, 2, 1, 0.9, 10))
                rows.append((variant, seed, "solve_rate", f, -1, -1,
                             rate + jitter + (0.0 if variant != "C" else jigsaw_c if f == "jigsaw"
                                              else rotation_c if f == "rotation" else 0.0), 10))
                rows.append((variant, seed, "first_action_acc", f, -1, -1, rate + 0.1, 10))
                if variant == "C":  # the positive control: C given the true visual tokens
                    rows.append((variant, seed, "solve_rate_given_z", f, -1, -1, _at(given_z, seed), 10))
                rows.append((variant, seed, "blind_first_action_acc", f, -1, -1, 0.3, 10))
                if variant != "A":  # the claims probe variant A only (fewer rows: the probe tables loop in pandas)
                    continue
                rows.append((variant, seed, "copy_acc", f, -1, 1, 0.8, 10))
                gain = _at(probe_gain, seed)
                for kind, acc in [("trained", 0.8 + gain), ("untrained", 0.8), ("shuffled", 0.75),
                                  ("start_only", 0.8), ("oracle", 1.0), ("random_code", _at(given, seed))]:
                    for layer in (0, 1):
                        rows.append((variant, seed, f"{kind}_acc_all", f, layer, -1, acc - 0.01 * layer, 10))
                        rows.append((variant, seed, f"{kind}_acc", f, layer, 1, acc - 0.01 * layer, 10))
                        rows.append((variant, seed, f"{kind}_changed_acc", f, layer, 1, 0.5, 3))
                # the claim's probe (intermediate states, changed cells): baselines at 0.5, copy at 0 by definition
                for kind, changed in [("trained", 0.5 + gain), ("untrained", 0.5), ("start_only", 0.5),
                                      ("goal_only", 0.5), ("copy", 0.0), ("random_code", _at(given, seed) - 0.3)]:
                    for score, value in (("changed", changed), ("exact", changed / 2)):
                        rows.append((variant, seed, f"{kind}_mid_{score}", f, 1, -1, value, 6))
    return pd.DataFrame(rows, columns=["variant", "seed", "metric", "family", "layer", "step", "value", "n"])


def verdicts(runs, cap: int = 1000, scale: str = "default"):
    cfg = OmegaConf.create({"train": {"max_steps": cap}})
    claims = paper_claims.build(tables.table_solve(runs), tables.table_solve_seeds(runs), tables.table_probe(runs),
                                tables.table_probe_seeds(runs), tables.table_probe_mid_seeds(runs), cfg)
    doc = {c.id: c.to_json(scale, "embedded") for c in claims}
    return {k: d["verdict"] for k, d in doc.items()}, doc


def test_claims_match_the_registered_list():
    from neurips26.common.pipeline.registry import registered_claims

    _, doc = verdicts(synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05))
    assert set(doc) == {c["id"] for c in registered_claims("mental_imagery")["claims"]}
    assert all(d["kind"] == "claim" for d in doc.values())


@pytest.mark.slow
def test_variant_comparisons_wait_for_converged_runs():
    """A seed of A, B or C at the step cap (synthetic runs take 500..502 steps) leaves the two comparisons
    inconclusive, with the comparison still measured; learns_puzzles and the probe claim keep their verdicts."""
    runs = synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05)
    v, doc = verdicts(runs, cap=502)
    assert v["visual_supervision_or_tokens_help"] == "inconclusive" and v["gains_on_jigsaw_rotation"] == "inconclusive"
    assert "A, B, C trained to the fine-tuning cap" in doc["visual_supervision_or_tokens_help"]["why_inconclusive"]
    assert doc["visual_supervision_or_tokens_help"]["outcome"] == "holds"  # the capped comparison, shown not judged
    assert doc["gains_on_jigsaw_rotation"]["measured"]["steps_max_C"] == 502
    assert v["learns_puzzles"] == "holds" and v["probes_decode_state"] == "holds"
    one = runs[~((runs.variant == "B") & (runs.metric == "steps") & (runs.seed == 2))]
    _, doc = verdicts(one, cap=502)  # B's seeds stopped early; A and C still have a capped seed
    assert "variant(s) A, C trained" in doc["gains_on_jigsaw_rotation"]["why_inconclusive"]
    v, _ = verdicts(runs, cap=503)
    assert v["visual_supervision_or_tokens_help"] == "holds"
    assert v["gains_on_jigsaw_rotation"] == "fails"  # the rotation gain is -0.1 on every seed


@pytest.mark.slow
def test_verdicts_follow_the_numbers():
    """A clear win holds, a clear loss fails; the paper-scale claim stays inconclusive at default and names its
    scale."""
    v, doc = verdicts(synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05))
    assert v == {"learns_puzzles": "holds", "probes_decode_state": "holds",
                 "visual_supervision_or_tokens_help": "holds",  # B - A = 0.05, C - A = 0.2 / 5 on every seed
                 "gains_on_jigsaw_rotation": "fails",  # the rotation gain is -0.1 on every seed
                 "twelve_tasks_pretrained_vlm": "inconclusive"}
    assert all(c["passed"] for c in doc["probes_decode_state"]["controls"])
    assert doc["learns_puzzles"]["per_seed"]["0"]["solve A - blind, jigsaw"] == pytest.approx(0.39)
    assert "scale=paper data=real" in doc["twelve_tasks_pretrained_vlm"]["why_inconclusive"]
    v, doc = verdicts(synthetic_runs({"A": 0.4, "B": 0.3, "C": 0.3}, probe_gain=-0.05, given=0.95, jigsaw_c=0.0))
    assert v["learns_puzzles"] == "fails" and v["probes_decode_state"] == "fails"
    assert v["visual_supervision_or_tokens_help"] == "fails"
    v, _ = verdicts(synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05, blind=0.55))
    assert v["learns_puzzles"] == "fails"  # mean above 0.5 but not clearly above the blind policy


def test_jigsaw_and_rotation_gains_hold_when_they_lead():
    runs = synthetic_runs({"A": 0.5, "B": 0.55, "C": 0.5}, probe_gain=0.05)
    rot = runs[(runs.variant == "C") & (runs.metric == "solve_rate") & (runs.family == "rotation")].index
    runs.loc[rot, "value"] += 0.25  # rotation gain +0.15
    v, doc = verdicts(runs)
    assert v["gains_on_jigsaw_rotation"] == "holds" and v["visual_supervision_or_tokens_help"] == "holds"
    lead = doc["gains_on_jigsaw_rotation"]["per_seed"]["1"]["max gain (jigsaw, rotation) - max gain (other families)"]
    assert lead == pytest.approx(0.3)


@pytest.mark.slow
def test_probe_verdict_reads_seed_intervals():
    """Margins over the untrained probe of +0.05, -0.01, +0.02 over the seeds: the mean (+0.02) is positive but its
    interval straddles 0, so the claim is inconclusive; clearly positive margins hold, clearly negative ones fail. The
    t interval with three seeds is mean -/+ 4.303 * sd / sqrt(3)."""
    v, doc = verdicts(synthetic_runs({"A": 0.6, "B": 0.6, "C": 0.6}, probe_gain=(0.05, -0.01, 0.02)))
    assert v["probes_decode_state"] == "inconclusive" and "straddles" in doc["probes_decode_state"]["why_inconclusive"]
    test = next(t for t in doc["probes_decode_state"]["tests"] if t["name"].startswith("probe - untrained, sokoban"))
    half = 4.30265273 * np.std([0.05, -0.01, 0.02], ddof=1) / np.sqrt(3)
    assert test["estimate"] == pytest.approx(0.02) and test["ci_low"] == pytest.approx(0.02 - half, abs=1e-5)
    abc = {"A": 0.6, "B": 0.6, "C": 0.6}
    assert verdicts(synthetic_runs(abc, probe_gain=(0.05, 0.049, 0.051)))[0]["probes_decode_state"] == "holds"
    assert verdicts(synthetic_runs(abc, probe_gain=(-0.05, -0.049, -0.051)))[0]["probes_decode_state"] == "fails"


def test_a_failed_positive_control_makes_the_probe_claim_inconclusive():
    """random_code below copy (0.7 < 0.8): the criterion could not pass on a state that holds the board, so a probe
    claim that would hold is inconclusive."""
    v, doc = verdicts(synthetic_runs({"A": 0.6, "B": 0.6, "C": 0.6}, probe_gain=0.05, given=(0.7, 0.71, 0.69)))
    assert doc["probes_decode_state"]["outcome"] == "holds" and v["probes_decode_state"] == "inconclusive"
    assert "random_code_" in doc["probes_decode_state"]["why_inconclusive"]


def test_probe_seed_table_keeps_each_seed():
    t = tables.table_probe_seeds(synthetic_runs({"A": 0.6}, probe_gain=(0.05, -0.01, 0.0)))
    trained = t[(t.kind == "trained") & (t.family == "sokoban")].set_index("seed")["acc"]
    assert trained[0] == pytest.approx(0.85) and trained[1] == pytest.approx(0.79)


def test_solve_seed_table_keeps_each_seed():
    t = tables.table_solve_seeds(synthetic_runs({"A": 0.6, "C": 0.6}, 0.0))
    c = t[(t.variant == "C") & (t.family == "mean")].set_index("seed")
    assert c.loc[2, "solve_rate"] == pytest.approx(0.61 + 0.2 / 5) and c.loc[2, "steps"] == 502
    assert t[(t.variant == "blind") & (t.family == "jigsaw")]["solve_rate"].tolist() == pytest.approx([0.2] * 3)
    assert t[(t.variant == "A") & (t.family == "sokoban")]["first_action"].tolist() == pytest.approx([0.7] * 3)


def test_solve_table_means_over_families_and_seeds():
    t = tables.table_solve(synthetic_runs({"A": 0.6, "C": 0.6}, 0.0)).set_index(["family", "variant"])
    assert t.loc[("mean", "C"), "solve_rate"] == pytest.approx(0.6 + 0.2 / 5)
    assert t.loc[("jigsaw", "A"), "seeds"] == 3
    assert t.loc[("mean", "blind"), "solve_rate"] == pytest.approx(0.2)
    assert t.loc[("mean", "C"), "steps"] == pytest.approx(501) and t.loc[("mean", "C"), "steps_max"] == 502
    assert t.loc[("sokoban", "A"), "first_action"] == pytest.approx(0.7)
    assert t.loc[("mean", "blind"), "first_action"] == pytest.approx(0.3)


def test_stages_name_what_is_wrong(tmp_path):
    cfg = OmegaConf.create({"data": "embedded"})
    with pytest.raises(UserError, match="solve.csv solve_seeds.csv probe.csv"):
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


@pytest.mark.slow
def test_probe_claim_reads_the_pretrained_control_and_the_random_code_positive_control():
    """With VLM pretraining the untrained control is the stronger of the random and the pretrained-only model; the
    positive control is random_code (a d-dimensional code of the true board)."""
    runs = synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=(0.05, 0.051, 0.049), given=0.95)
    extra = []
    for seed in SEEDS:
        for f in FAMS:
            extra.append(("A", seed, "pretrained_acc_all", f, 0, -1, 0.9, 10))
            extra.append(("A", seed, "pretrained_acc", f, 0, 1, 0.9, 10))
            extra += [("A", seed, f"pretrained_mid_{score}", f, 0, -1, 0.6, 6) for score in ("changed", "exact")]
    runs2 = pd.concat([runs, pd.DataFrame(extra, columns=runs.columns)], ignore_index=True)
    v, doc = verdicts(runs2)
    assert v["probes_decode_state"] == "fails"  # changed cells: trained 0.55 < pretrained-only 0.6
    control = next(c for c in doc["probes_decode_state"]["controls"] if c["id"] == "random_code_jigsaw_untrained")
    assert control["passed"] is True and control["test"]["estimate"] == pytest.approx(0.05)
    test = next(t for t in doc["probes_decode_state"]["tests"] if t["name"].startswith("probe - untrained, jigsaw"))
    assert test["estimate"] == pytest.approx(-0.05)
    v, _ = verdicts(runs)  # without the pretrained-only model: the random model is the untrained control
    assert v["probes_decode_state"] == "holds"


def test_a_c_that_cannot_use_true_visual_tokens_leaves_the_token_claim_inconclusive():
    """C fed the true visual tokens must beat A (the positive control): when it does not (0.5 < A's 0.6), a C - A
    gain cannot be read as the tokens' doing, and the claim that would hold is inconclusive."""
    v, doc = verdicts(synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05, given_z=0.5))
    claim = doc["visual_supervision_or_tokens_help"]
    assert claim["outcome"] == "holds" and v["visual_supervision_or_tokens_help"] == "inconclusive"
    assert "c_given_true_tokens_beats_a" in claim["why_inconclusive"]
    v, _ = verdicts(synthetic_runs({"A": 0.6, "B": 0.65, "C": 0.6}, probe_gain=0.05))
    assert v["visual_supervision_or_tokens_help"] == "holds"

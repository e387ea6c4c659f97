import json
import math

import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.claims import Claim, Control, RuleTest, SeedTest, decide, evaluate, paired, write_claims
from neurips26.common.pipeline.errors import UserError


def test_criteria_are_evaluated_from_measured_values():
    measured = {"max_abs_z": 1.7, "naive_z": 41.2, "slope": -0.52}
    assert evaluate("max_abs_z < 3 and naive_z > 10", measured) is True
    assert evaluate("max_abs_z < 1", measured) is False
    assert evaluate("-0.6 <= slope <= -0.4", measured) is True
    assert evaluate("abs(slope + 0.5) < 0.01 or not naive_z > 10", measured) is False
    assert evaluate("max_abs_z < 3", {"max_abs_z": math.nan}) is None


def test_criteria_refuse_unknown_names_and_code():
    with pytest.raises(ValueError, match="not in measured"):
        evaluate("x < 1", {"y": 0.0})
    with pytest.raises(ValueError, match="not in measured"):
        evaluate("__import__('os') == 1", {})
    with pytest.raises(ValueError, match="not allowed"):
        evaluate("x.real < 1", {"x": 0.5})


def _cfg(scale="default"):
    return OmegaConf.create({"scale_name": scale, "data": "embedded", "seeds": [0, 1, 2]})


PAPER = {"value": None, "where": "Fig. 2"}
PROVENANCE = {"commit": None, "dirty": None, "python": "3.11", "packages": {}, "scale": "default", "data": "embedded",
              "seeds": [0, 1, 2], "config_sha256": None, "inputs": {}}


def _registered(monkeypatch, claims, sanity=()):
    import neurips26.common.pipeline.claims as module

    monkeypatch.setattr(module, "registered_claims",
                        lambda _: {"claims": [{"id": c, "abstract": "s"} for c in claims], "sanity": list(sanity)})


def test_a_seed_test_holds_fails_or_is_inconclusive_by_its_t_interval():
    assert SeedTest("gap", {0: 0.10, 1: 0.12, 2: 0.11}, ">", 0.0).outcome()[0] == "holds"
    assert SeedTest("gap", {0: -0.10, 1: -0.12, 2: -0.11}, ">", 0.0).outcome()[0] == "fails"
    straddle = SeedTest("gap", {0: 0.05, 1: -0.02, 2: 0.03}, ">", 0.0)     # mean > 0, the interval spans 0
    assert straddle.statistic()["estimate"] > 0 and straddle.outcome()[0] == "inconclusive"
    assert "straddles" in straddle.outcome()[1]
    assert SeedTest("gap", {0: 0.1, 1: 0.12}, ">", 0.0).outcome()[0] == "inconclusive"  # two seeds: too few
    assert SeedTest("gap", {0: 0.1, 1: 0.12, 2: None}, ">", 0.0).outcome()[0] == "inconclusive"
    assert SeedTest("err", {0: 0.01, 1: 0.02, 2: 0.015}, "<", 0.05).outcome()[0] == "holds"
    assert SeedTest("err", {0: 0.01, 1: 0.02, 2: 0.015}, "<", 0.0).outcome()[0] == "fails"
    inside = SeedTest("slope", {0: -0.5, 1: -0.52, 2: -0.48}, "within", (-0.6, -0.4))
    outside = SeedTest("slope", {0: -0.05, 1: -0.04, 2: -0.06}, "within", (-0.6, -0.4))
    wide = SeedTest("slope", {0: -0.2, 1: -0.7, 2: -0.5}, "within", (-0.6, -0.4))
    assert [t.outcome()[0] for t in (inside, outside, wide)] == ["holds", "fails", "inconclusive"]
    with pytest.raises(ValueError, match="within"):
        SeedTest("x", {}, "within", 0.0)


def test_paired_differences_match_seeds_and_drop_missing_ones():
    assert paired({0: 1.0, 1: 2.0, 2: 3.0}, {1: 1.5, 2: float("nan"), 3: 9.0}) == {"1": 0.5, "2": None}


def test_a_rule_test_states_its_own_three_valued_rule():
    def rule(v):
        return RuleTest("slope", {"slope": v}, "-0.6 <= slope <= -0.4", "slope > -0.3 or slope < -0.7")

    assert [rule(v).outcome()[0] for v in (-0.5, -0.1, -0.35, None)] == ["holds", "fails", "inconclusive",
                                                                           "inconclusive"]
    with pytest.raises(ValueError, match="both true"):
        RuleTest("x", {"x": 1.0}, "x > 0", "x > 0.5").outcome()


def test_one_verdict_function_gates_scale_data_and_controls():
    win = SeedTest("gap", {0: 0.10, 1: 0.12, 2: 0.11}, ">", 0.0)
    loss = SeedTest("gap", {0: -0.10, 1: -0.12, 2: -0.11}, ">", 0.0)
    assert decide([win], [], "default", "embedded", "default", None, None)[:2] == ("holds", "holds")
    assert decide([win, loss], [], "default", "embedded", "default", None, None)[0] == "fails"
    verdict, outcome, why = decide([win], [], "tiny", "embedded", "default", None, None)
    assert (verdict, outcome) == ("inconclusive", "holds") and "scale=default" in why
    assert decide([win], [], "paper", "embedded", "paper", "real", None)[0] == "inconclusive"
    assert decide([win], [], "paper", "real", "paper", "real", None)[0] == "holds"
    assert "cannot" in decide([win], [], "default", "embedded", "default", None, "cannot: no model")[2]
    failed_positive = Control("planted", "positive", "planted effect", loss)
    passed_negative = Control("shuffled", "negative", "shuffled labels", loss)
    failed_negative = Control("shuffled", "negative", "shuffled labels", win)   # the null shows the effect too
    missing = Control("planted", "positive", "planted effect", SeedTest("gap", {0: 0.1}, ">", 0.0))
    assert decide([win], [passed_negative], "default", "embedded", "default", None, None)[0] == "holds"
    for control, state in ((failed_positive, "did not pass"), (failed_negative, "did not pass"),
                           (missing, "is missing")):
        verdict, _, why = decide([win], [control], "default", "embedded", "default", None, None)
        assert verdict == "inconclusive" and state in why
    optional = Control("extra", "positive", "x", loss, required=False)
    assert decide([win], [optional], "default", "embedded", "default", None, None)[0] == "holds"


def test_claims_json_is_validated_registered_and_evidence_must_exist(tmp_path, repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    _registered(monkeypatch, ["unbiased", "real_data"], ["identity"])
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "main.csv").write_text("a\n1\n")
    win = SeedTest("gap", {0: 0.10, 1: 0.12, 2: 0.11}, ">", 0.0)
    claims = [Claim("unbiased", "it is unbiased", "gap above 0", [win], ["tables/main.csv"], PAPER),
              Claim("real_data", "works on CIFAR-10N", "needs it", [], ["tables/main.csv"], PAPER,
                    why_not_tested="needs CIFAR-10N"),
              Claim("identity", "a = a", "by construction", [win], ["tables/main.csv"], PAPER, kind="sanity")]
    document = write_claims(tmp_path / "claims.json", "mec_mmd", _cfg(), claims, PROVENANCE)
    first, second, third = document["claims"]
    assert (first["verdict"], first["holds"]) == ("holds", True)
    assert first["per_seed"] == {"0": {"gap": 0.1}, "1": {"gap": 0.12}, "2": {"gap": 0.11}}
    assert first["statistic"]["n"] == 3 and first["statistic"]["ci_low"] > 0
    assert (second["verdict"], second["holds"], second["why_inconclusive"]) == ("inconclusive", None, "needs CIFAR-10N")
    assert third["kind"] == "sanity"
    assert json.loads((tmp_path / "claims.json").read_text()) == document
    with pytest.raises(UserError, match="evidence that does not exist"):
        write_claims(tmp_path / "bad.json", "mec_mmd", _cfg(), [Claim("unbiased", "s", "c", [win], ["figures/no.png"],
                                                                     PAPER)], PROVENANCE)
    assert not (tmp_path / "bad.json").exists()


def test_a_claim_missing_from_the_registry_or_an_unregistered_entry_is_refused(tmp_path, repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    _registered(monkeypatch, ["unbiased", "rate"])
    win = SeedTest("gap", {0: 0.10, 1: 0.12, 2: 0.11}, ">", 0.0)
    with pytest.raises(UserError, match=r"without an entry: \['rate'\]"):
        write_claims(tmp_path / "c.json", "mec_mmd", _cfg(), [Claim("unbiased", "s", "c", [win], [], PAPER)],
                     PROVENANCE)
    extra = [Claim(i, "s", "c", [win], [], PAPER) for i in ("unbiased", "rate", "bonus")]
    with pytest.raises(UserError, match="not registered"):
        write_claims(tmp_path / "c.json", "mec_mmd", _cfg(), extra, PROVENANCE)
    hidden = [*extra[:2], Claim("bonus", "s", "c", [win], [], PAPER, kind="sanity")]
    with pytest.raises(UserError, match="sanity entries"):
        write_claims(tmp_path / "c.json", "mec_mmd", _cfg(), hidden, PROVENANCE)
    assert not (tmp_path / "c.json").exists()


def test_every_implemented_paper_registers_its_abstract_claims(repo_root):
    from neurips26.common.pipeline.registry import load_papers, registered_claims

    for paper in [p for p in load_papers(repo_root) if p.implemented]:
        registered = registered_claims(paper.id, repo_root)
        ids = [c["id"] for c in registered["claims"]]
        assert ids and len(ids) == len(set(ids)), paper.id
        assert not set(ids) & set(registered["sanity"]), f"{paper.id}: a sanity id is also registered as a claim"


def test_seed_interval_against_a_hand_computation_and_scipy():
    from scipy import stats

    from neurips26.common.pipeline.claims import seed_interval

    mean, lo, hi = seed_interval([0.1, 0.2, 0.4])
    # by hand: mean 0.7 / 3, sd sqrt(0.07 / 3) = 0.152753, se 0.0881917, t_{0.975, 2} = 4.302653, half 0.379458
    assert mean == pytest.approx(0.233333, abs=1e-6)
    assert (lo, hi) == (pytest.approx(-0.146125, abs=1e-6), pytest.approx(0.612791, abs=1e-6))
    values = [0.03, -0.01, 0.05, 0.02, 0.0]
    ref = stats.t.interval(0.9, len(values) - 1, loc=sum(values) / 5, scale=stats.sem(values))
    assert seed_interval(values, 0.9)[1:] == pytest.approx(ref, rel=1e-12)
    assert seed_interval([0.2, float("nan"), 0.4])[1:] == pytest.approx(seed_interval([0.2, 0.4])[1:])
    one = seed_interval([0.3])
    assert one[0] == 0.3 and math.isnan(one[1]) and math.isnan(one[2])   # one seed: no interval
    assert all(math.isnan(x) for x in seed_interval([]))


def test_a_long_scale_that_runs_defaults_design_decides_nothing_more(tmp_path, repo_root, monkeypatch):
    """scale=long with long_design: false (the paper's long budgets are not built) must not judge a claim decided at
    long; with a long design it does, and a claim decided at default is judged either way."""
    from neurips26.common.pipeline.claims import claims_document

    monkeypatch.chdir(repo_root)
    win = SeedTest("gap", {0: 0.10, 1: 0.12, 2: 0.11}, ">", 0.0)
    claims = [Claim("at_long", "s", "c", [win], [], PAPER, decided_at="long"), Claim("at_default", "s", "c", [win], [],
                                                                                      PAPER)]
    undesigned = OmegaConf.create({"scale_name": "long", "data": "embedded", "seeds": [0, 1, 2], "long_design": False})
    at_long, at_default = claims_document("mec_mmd", undesigned, claims, PROVENANCE)["claims"]
    assert at_long["verdict"] == "inconclusive" and "scale=long with default's design" in at_long["why_inconclusive"]
    assert at_default["verdict"] == "holds"
    designed = claims_document("mec_mmd", _cfg("long"), claims, PROVENANCE)["claims"]
    assert [c["verdict"] for c in designed] == ["holds", "holds"]

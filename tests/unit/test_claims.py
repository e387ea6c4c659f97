import json
import math

import pytest
from omegaconf import OmegaConf

from neurips26.common.claims import Claim, PositiveControl, evaluate, write_claims
from neurips26.common.errors import UserError


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


def test_claims_json_is_validated_and_evidence_must_exist(tmp_path, repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "main.csv").write_text("a\n1\n")
    cfg = OmegaConf.create({"scale_name": "tiny", "data": "embedded", "seeds": [0, 1]})
    claims = [Claim("unbiased", "it is unbiased", "z < 3", {"z": 1.25}, ["tables/main.csv"]),
              Claim("real_data", "works on CIFAR-10N", "z < 3", {"z": None}, [], why_untested="needs CIFAR-10N")]
    document = write_claims(tmp_path / "claims.json", "mec_mmd", cfg, claims)
    assert document["claims"][0]["holds"] is True
    assert document["claims"][1]["holds"] is None and document["claims"][1]["why_untested"] == "needs CIFAR-10N"
    assert json.loads((tmp_path / "claims.json").read_text()) == document
    with pytest.raises(UserError, match="evidence that does not exist"):
        write_claims(tmp_path / "bad.json", "mec_mmd", cfg, [Claim("x", "s", "z < 3", {"z": 1}, ["figures/none.png"])])
    assert not (tmp_path / "bad.json").exists()


def test_a_positive_control_is_judged_by_the_claims_own_criterion(tmp_path, repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    cfg = OmegaConf.create({"scale_name": "tiny", "data": "embedded", "seeds": [0]})
    control = PositiveControl("planted redundancy", {"z": 0.5})
    failing = PositiveControl("no signal", {"z": 7.0})
    claims = [Claim("a", "s", "z < 3", {"z": 4.0}, [], positive_control=control),
              Claim("b", "s", "z < 3", {"z": 1.0}, [], positive_control=failing)]
    document = write_claims(tmp_path / "claims.json", "mec_mmd", cfg, claims)
    first, second = document["claims"]
    assert first["holds"] is False and first["positive_control"] == {"setting": "planted redundancy",
                                                                     "measured": {"z": 0.5}, "holds": True}
    assert second["holds"] is True and second["positive_control"]["holds"] is False


def test_seed_interval_against_a_hand_computation_and_scipy():
    from scipy import stats

    from neurips26.common.claims import seed_interval

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


def test_interval_verdict_holds_fails_or_is_inconclusive():
    from neurips26.common.claims import interval_verdict, seed_interval

    criterion = "gap_lo > 0 and count_lo >= needed"

    def measured(per_seed, count=(3, 3)):
        mean, lo, hi = seed_interval(per_seed)
        return {"gap": mean, "gap_lo": lo, "gap_hi": hi, "count_lo": count[0], "count_hi": count[1], "needed": 3}

    assert interval_verdict(criterion, measured([0.10, 0.12, 0.11])) is True         # clearly above 0
    assert interval_verdict(criterion, measured([-0.10, -0.12, -0.11])) is False     # clearly below
    straddle = measured([0.05, -0.02, 0.03])                                         # mean > 0, interval spans 0
    assert straddle["gap"] > 0 and interval_verdict(criterion, straddle) is None
    assert interval_verdict(criterion, measured([0.10, 0.12, 0.11], count=(2, 2))) is False   # a constant decides
    assert interval_verdict(criterion, measured([0.10, 0.12, 0.11], count=(2, 3))) is None
    assert interval_verdict(criterion, measured([0.10])) is None                     # one seed: undefined
    with pytest.raises(ValueError, match="non-decreasing"):
        interval_verdict("gap_lo < 0", {"gap_lo": -1.0, "gap_hi": 1.0})

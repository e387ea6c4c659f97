"""Every conversion against textbook values (2x2 tables, the exponential survival model, Borenstein et al.'s worked
example, the Cochrane Handbook's SE-from-CI formula)."""

import math

import pytest
from scipy.stats import norm

from neurips26.papers.causal_compile import conversions as cv


def test_or_to_rr_zhang_yu_matches_a_2x2_table():
    # control risk 0.2, treated risk 1/3: RR = 5/3, OR = (1/3)/(2/3) / (0.2/0.8) = 2
    assert cv.or_to_rr(2.0, 0.2) == pytest.approx(5 / 3, abs=1e-12)
    assert cv.rr_to_or(5 / 3, 0.2) == pytest.approx(2.0, abs=1e-12)
    # Zhang & Yu's formula: OR 3, baseline 10% -> RR 3 / (0.9 + 0.3) = 2.5
    assert cv.or_to_rr(3.0, 0.1) == pytest.approx(2.5, abs=1e-12)
    # rare outcome: OR ~ RR
    assert cv.or_to_rr(2.0, 0.001) == pytest.approx(2.0, rel=2e-3)


@pytest.mark.parametrize("p0", [0.02, 0.1, 0.3, 0.5])
@pytest.mark.parametrize("rr", [0.5, 0.9, 1.3, 1.8])
def test_or_and_hr_round_trips(p0, rr):
    assert cv.or_to_rr(cv.rr_to_or(rr, p0), p0) == pytest.approx(rr, rel=1e-12)
    assert cv.hr_to_rr(cv.rr_to_hr(rr, p0), p0) == pytest.approx(rr, rel=1e-12)


def test_hr_to_rr_under_the_exponential_model():
    # S0 = 0.9 at the horizon; HR 2 -> S1 = 0.9^2 = 0.81 -> risks 0.1 and 0.19 -> RR 1.9
    assert cv.hr_to_rr(2.0, 0.1) == pytest.approx(1.9, abs=1e-12)
    # the same from hazards: lambda0 t = -ln 0.9, lambda1 = 2 lambda0
    p1 = 1 - math.exp(-2 * -math.log(0.9))
    assert cv.hr_to_rr(2.0, 0.1) == pytest.approx(p1 / 0.1, abs=1e-12)


def test_smd_log_or_chinn_hasselblad_hedges():
    # Borenstein et al., Introduction to Meta-Analysis (2009), ch. 7: d = 0.5000 <-> log odds ratio 0.9069
    assert cv.smd_to_log_or(0.5) == pytest.approx(0.9069, abs=1e-4)
    assert cv.log_or_to_smd(0.9069) == pytest.approx(0.5, abs=1e-4)
    assert cv.PI_SQRT3 == pytest.approx(1.8138, abs=1e-4)  # Chinn (2000): ln OR = 1.81 x SMD


def test_chinn_approximates_a_dichotomised_normal_outcome():
    # the logistic approximation of a normal shift: close for small d at a central threshold
    d, c = 0.2, 0.0
    exact = math.log(norm.sf(c - d) / norm.cdf(c - d))
    assert cv.log_or_to_smd(exact) == pytest.approx(d, rel=0.15)


def test_se_from_ci_cochrane():
    # Cochrane Handbook 6.3.2: SE = (ln U - ln L) / 3.92 for a ratio
    assert cv.se_from_ratio_ci(1.2, 3.0) == pytest.approx((math.log(3.0) - math.log(1.2)) / 3.92, rel=1e-3)
    assert cv.se_from_ratio_ci(1.2, 3.0) == pytest.approx(0.2338, abs=1e-4)
    assert cv.se_from_difference_ci(-3.2, 1.0) == pytest.approx(4.2 / 3.92, rel=1e-3)
    assert cv.z_of(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert cv.z_of(0.90) == pytest.approx(1.644854, abs=1e-6)


def test_se_from_ci_recovers_the_standard_error_it_was_built_from():
    se = 0.3
    lo, hi = math.exp(0.4 - 1.959964 * se), math.exp(0.4 + 1.959964 * se)
    assert cv.se_from_ratio_ci(lo, hi) == pytest.approx(se, rel=1e-6)


def test_vanderweele_square_root_for_common_outcomes():
    assert cv.or_to_rr_unknown_p0(4.0, common=True) == pytest.approx(2.0)
    assert cv.or_to_rr_unknown_p0(4.0, common=False) == pytest.approx(4.0)


def test_impossible_risks_are_refused():
    with pytest.raises(ValueError, match="outside"):
        cv.rr_to_or(3.0, 0.5)
    with pytest.raises(ValueError, match="outside"):
        cv.rr_to_hr(2.5, 0.5)

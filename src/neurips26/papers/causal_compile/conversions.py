"""Effect standardisation: every reported scale to the canonical one (log RR for binary outcomes, SMD for continuous).

OR -> RR with baseline risk p0: RR = OR / (1 - p0 + p0 OR) (Zhang & Yu 1998, JAMA 280:1690).
HR -> RR with the control risk p0 at the horizon (proportional hazards): RR = (1 - (1 - p0)^HR) / p0.
SMD <-> log OR: ln OR = SMD * pi / sqrt(3) (Hasselblad & Hedges 1995; Chinn 2000, Stat Med 19:3127).
SE from a 95% CI of a ratio: (ln U - ln L) / (2 * 1.959964); of a difference: (U - L) / (2 * 1.959964).
VanderWeele (2020, Biometrics 76:746): RR ~ sqrt(OR) for a common outcome (> 15%) when p0 is unknown.
"""

from __future__ import annotations

import math
from statistics import NormalDist

PI_SQRT3 = math.pi / math.sqrt(3.0)
COMMON_OUTCOME = 0.15


def z_of(level: float = 0.95) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2)


def or_to_rr(odds_ratio: float, p0: float) -> float:
    return odds_ratio / (1.0 - p0 + p0 * odds_ratio)


def rr_to_or(risk_ratio: float, p0: float) -> float:
    p1 = risk_ratio * p0
    if not 0 < p1 < 1:
        raise ValueError(f"RR {risk_ratio} with baseline risk {p0} gives a treated risk {p1} outside (0, 1)")
    return p1 / (1 - p1) / (p0 / (1 - p0))


def hr_to_rr(hazard_ratio: float, p0: float) -> float:
    return (1.0 - (1.0 - p0) ** hazard_ratio) / p0


def rr_to_hr(risk_ratio: float, p0: float) -> float:
    p1 = risk_ratio * p0
    if not 0 < p1 < 1:
        raise ValueError(f"RR {risk_ratio} with baseline risk {p0} gives a treated risk {p1} outside (0, 1)")
    return math.log(1.0 - p1) / math.log(1.0 - p0)


def smd_to_log_or(smd: float) -> float:
    return smd * PI_SQRT3


def log_or_to_smd(log_or: float) -> float:
    return log_or / PI_SQRT3


def se_from_ratio_ci(low: float, high: float, level: float = 0.95) -> float:
    return (math.log(high) - math.log(low)) / (2 * z_of(level))


def se_from_difference_ci(low: float, high: float, level: float = 0.95) -> float:
    return (high - low) / (2 * z_of(level))


def or_to_rr_unknown_p0(odds_ratio: float, common: bool) -> float:
    """VanderWeele's square-root approximation for a common outcome; for a rare one, OR ~ RR."""
    return math.sqrt(odds_ratio) if common else odds_ratio

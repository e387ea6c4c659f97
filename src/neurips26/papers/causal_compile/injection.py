"""Labelled conflicts and look-alike non-conflicts for the evidence generator (graded difficulty).

Conflicts (the paper's rule: same cell, and significant opposite signs or disjoint 95% CIs) are built on the true
canonical values so that the rule holds by a margin m >= 1 (|gap| = m x 1.96 (se_a + se_b)); the reported text is then
rounded, so the borderline ones (m near 1) can be lost in reading, as in real abstracts. Strata:
- opposite_sign: the injected kernel has the other sign, its own z drawn in conflict_z (1.5 to 4: many are not
  significant on their own; the CIs are disjoint);
- same_sign: the same sign as the target, further out or closer to zero, CIs disjoint;
- conversion: a new honest OR/HR study at a high control risk and an RR study that reports the OR's (or HR's) number as
  a risk ratio: identical when ratios are taken as RR, disjoint only after conversion.
Look-alikes are truthful kernels that a detector without the cell rule (or a too eager heterogeneity rule) would flag:
- other_population / other_horizon: a large study reporting the true effect of another population or horizon, whose CI
  is disjoint from the target's;
- low_heterogeneity: a kernel in the target's cell, within 1 to 1.9 of its SEs of the truth, CIs overlapping."""

from __future__ import annotations

import math

import numpy as np

from neurips26.papers.causal_compile import conversions as cv

Z95 = 1.959963984540054
CONFLICT_STRATA = ("opposite_sign", "same_sign", "conversion")
LOOK_ALIKES = ("other_population", "other_horizon", "low_heterogeneity")
TRIES = 200


def disjoint(a: float, se_a: float, b: float, se_b: float) -> bool:
    return abs(a - b) > Z95 * (se_a + se_b)


def meets_rule(a: float, se_a: float, b: float, se_b: float) -> bool:
    """The paper's pairwise conflict rule at 95% on true values."""
    opposite = abs(a) > Z95 * se_a and abs(b) > Z95 * se_b and np.sign(a) != np.sign(b)
    return bool(opposite or disjoint(a, se_a, b, se_b))


class Injector:
    def __init__(self, scm, c, rng, new_study, kernel, studies, studied):
        self.scm, self.c, self.rng = scm, c, rng
        self.new_study, self.kernel, self.studies, self.studied = new_study, kernel, studies, studied

    def _u(self, bounds) -> float:
        return float(self.rng.uniform(*bounds))

    def _add(self, edge, population, horizon, theta, se, conflict, stratum, scale=None, p0=None):
        study = self.new_study(edge, scale=scale)
        if p0 is not None:
            study["baseline_risk"], study["p0_reported"] = p0, True
        try:
            return self.kernel(study, edge, population, horizon, float(theta), float(se), conflict, stratum)
        except ValueError:  # a stated CI bound with no valid risk (a wide CI of a common outcome): draw again
            self._undo()
            return None

    def _undo(self, n: int = 1) -> None:
        del self.studies[-n:]

    def conflict(self, stratum: str, honest: list[dict]) -> dict | None:
        make = {"opposite_sign": self._signed, "same_sign": self._signed, "conversion": self._conversion}[stratum]
        for _ in range(TRIES):
            k = make(stratum, honest)
            if k is not None:
                return k
        return None

    def _signed(self, stratum: str, honest: list[dict]) -> dict | None:
        if not honest:
            return None
        t = honest[self.rng.integers(len(honest))]
        edge = (t["exposure"], t["outcome"])
        sigma = float(np.sign(t["truth_edge_effect"]) or np.sign(t["theta"]) or 1.0)
        z, m = self._u(self.c.conflict_z), self._u(self.c.conflict_margin)
        a, s = sigma * t["theta"], t["se"]  # the target's value in the truth's direction
        if stratum == "opposite_sign":
            se, sign = (Z95 * m * s - a) / (z - Z95 * m), -1.0
        elif self.rng.random() < 0.5:  # same sign, further out
            se, sign = (Z95 * m * s + a) / (z - Z95 * m), 1.0
        else:  # same sign, closer to zero
            se, sign = (a - Z95 * m * s) / (z + Z95 * m), 1.0
        if not 0.01 <= se <= 1.0:
            return None
        k = self._add(edge, "adults", t["horizon"], sign * sigma * z * se, se, True, stratum)
        if k is None:
            return None
        same_sign = np.sign(k["theta"]) == np.sign(t["theta"])
        if not disjoint(k["theta"], k["se"], t["theta"], t["se"]) or same_sign != (stratum == "same_sign"):
            self._undo()  # the generator clipped the value (binary outcome near risk 1): not the stratum asked for
            return None
        return k

    def _conversion(self, stratum: str, honest: list[dict]) -> dict | None:
        binary = [e for e in self.studied if self.scm.kind(e[1]) == "binary"]
        if not binary:
            return None
        edge = binary[self.rng.integers(len(binary))]
        h = list(self.c.horizons)[self.rng.integers(len(self.c.horizons))]
        scale = ("OR", "HR")[self.rng.integers(2)]
        p0, m = self._u(self.c.conversion_p0), self._u(self.c.conflict_margin)
        truth = self.scm.edges[edge].at(h)
        to_ratio = cv.rr_to_or if scale == "OR" else cv.rr_to_hr
        if math.exp(truth) * p0 >= 0.9:
            return None
        gap = math.log(to_ratio(math.exp(truth), p0)) - truth
        se = abs(gap) / (2 * Z95 * m)
        if se < 0.01:
            return None
        target = self._add(
            edge, "adults", h, truth + se * self.rng.standard_normal(), se, False, "conversion_target", scale, p0
        )
        if target is None:
            return None
        naive = math.log(to_ratio(math.exp(target["theta"]), p0))  # the target's ratio read as an RR
        k = self._add(edge, "adults", h, naive, se, True, stratum, "RR", p0)
        if k is None:
            self._undo()
            return None
        if not disjoint(k["theta"], k["se"], target["theta"], target["se"]) or abs(k["theta"] - naive) > 1e-9:
            self._undo(2)
            return None
        return k

    def look_alike(self, kind: str, honest: list[dict]) -> dict | None:
        for _ in range(TRIES):
            if not honest:
                return None
            t = honest[self.rng.integers(len(honest))]
            k = self._look_alike(kind, t)
            if k is not None:
                return k
        return None

    def _look_alike(self, kind: str, t: dict) -> dict | None:
        edge = (t["exposure"], t["outcome"])
        e = self.scm.edges[edge]
        if kind == "low_heterogeneity":
            se = t["se"] * self._u((0.8, 1.25))
            value = t["truth_edge_effect"] + (1 if self.rng.random() < 0.5 else -1) * self._u((1.0, 1.9)) * se
            if meets_rule(value, se, t["theta"], t["se"]):
                return None
            return self._add(edge, "adults", t["horizon"], value, se, False, kind)
        if kind == "other_population":
            population, horizon = ("older adults", "younger adults")[self.rng.integers(2)], t["horizon"]
        else:
            others = [h for h in self.c.horizons if h != t["horizon"]]
            population, horizon = "adults", others[self.rng.integers(len(others))]
        truth = e.at(horizon, population)
        se = abs(truth - t["theta"]) / (Z95 * self._u(self.c.look_alike_margin)) - t["se"]
        if se < 0.01:
            return None
        k = self._add(edge, population, horizon, truth, se, False, kind)
        if k is None:
            return None
        if not disjoint(k["theta"], k["se"], t["theta"], t["se"]):
            self._undo()
            return None
        return k

"""The estimand schema: one reported effect as a validated object (intervention contrast, effect scale, time horizon,
target population). Malformed evidence raises `EvidenceError` naming the field and what was expected."""

from __future__ import annotations

import math
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from neurips26.common.pipeline.errors import UserError

HORIZON_UNITS = {"day": 1 / 30.4375, "week": 7 / 30.4375, "month": 1.0, "year": 12.0}  # -> months


class Scale(StrEnum):
    RR = "RR"          # risk ratio
    OR = "OR"          # odds ratio
    HR = "HR"          # hazard ratio
    SMD = "SMD"        # standardised mean difference
    MD = "MD"          # mean difference in natural units (needs the outcome SD)
    LOG_RR = "logRR"   # canonical binary scale
    RATE_RATIO = "rate_ratio"  # real text only (counts per time); not convertible to a risk scale here


RATIO_SCALES = {Scale.RR, Scale.OR, Scale.HR, Scale.RATE_RATIO}


class Design(StrEnum):
    RCT = "rct"
    COHORT = "cohort"
    CASE_CONTROL = "case_control"


class EvidenceError(UserError):
    """Malformed evidence: which record, which field, what was expected."""


class Contrast(BaseModel):
    """The intervention contrast: exposure vs comparator (for continuous exposures: +delta SD vs baseline)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    exposure: str = Field(min_length=1)
    comparator: str = Field(min_length=1)
    outcome: str = Field(min_length=1)
    delta_sd: float = 1.0  # size of the exposure contrast in exposure SDs (-1: "one SD lower")

    @field_validator("delta_sd")
    @classmethod
    def _delta(cls, value: float) -> float:
        if value == 0 or not math.isfinite(value):
            raise ValueError("the contrast size delta_sd must be a finite non-zero number")
        return value


class Horizon(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    value: float = Field(gt=0)
    unit: str

    @field_validator("unit")
    @classmethod
    def _unit(cls, unit: str) -> str:
        unit = unit.lower().rstrip("s")
        if unit not in HORIZON_UNITS:
            raise ValueError(f"horizon unit must be one of {sorted(HORIZON_UNITS)} (plural allowed), got {unit!r}")
        return unit

    @property
    def months(self) -> float:
        return self.value * HORIZON_UNITS[self.unit]


class Population(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    group: str = Field(min_length=1)  # "adults", "older adults", "younger adults", ...
    min_age: float | None = Field(default=None, ge=0, le=120)
    max_age: float | None = Field(default=None, ge=0, le=120)

    @model_validator(mode="after")
    def _ages(self):
        if self.min_age is not None and self.max_age is not None and self.min_age >= self.max_age:
            raise ValueError(f"population age range is empty: min_age {self.min_age} >= max_age {self.max_age}")
        return self


class Estimand(BaseModel):
    """One effect kernel as reported (before standardisation)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    study_id: str = Field(min_length=1)
    contrast: Contrast
    scale: Scale
    estimate: float
    ci_low: float | None = None
    ci_high: float | None = None
    ci_level: float = Field(default=0.95, gt=0, lt=1)
    horizon: Horizon
    population: Population
    design: Design = Design.RCT
    n: int | None = Field(default=None, gt=0)
    baseline_risk: float | None = Field(default=None, gt=0, lt=1)  # control-arm risk (OR/HR -> RR)
    outcome_sd: float | None = Field(default=None, gt=0)            # MD -> SMD

    @model_validator(mode="after")
    def _consistent(self):
        if not math.isfinite(self.estimate):
            raise ValueError("estimate must be a finite number")
        if self.scale in RATIO_SCALES and self.estimate <= 0:
            raise ValueError(f"a {self.scale.value} must be > 0, got {self.estimate}")
        if (self.ci_low is None) != (self.ci_high is None):
            raise ValueError("give both CI bounds or neither")
        if self.ci_low is not None:
            if not self.ci_low < self.ci_high:
                raise ValueError(f"CI bounds out of order: lower {self.ci_low} >= upper {self.ci_high}")
            if not self.ci_low <= self.estimate <= self.ci_high:
                raise ValueError(f"estimate {self.estimate} lies outside its CI [{self.ci_low}, {self.ci_high}]")
            if self.scale in RATIO_SCALES and self.ci_low <= 0:
                raise ValueError(f"a {self.scale.value} CI bound must be > 0, got {self.ci_low}")
        if self.scale == Scale.MD and self.outcome_sd is None:
            raise ValueError("a mean difference needs outcome_sd to be standardised")
        return self


def parse_estimand(record: dict, where: str = "evidence") -> Estimand:
    """Validate one raw record; a malformed one raises EvidenceError naming the record and each bad field."""
    try:
        return Estimand.model_validate(record)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in exc.errors())
        raise EvidenceError(f"{where} {record.get('study_id', '?')!r} is malformed: {problems}") from None

"""Canonicalisation on text the extractor was not written for (issue 56 item 1).

Every well-formed generated kernel is also written in a held-out surface form (config `heldout`, fixed before any run:
other phrasings, orders, CI styles, horizon units, population wordings, the control risk as a proportion, negations).
Two accuracies, kept apart:
- extraction: the extractor's record from the held-out sentence states what the sentence states (cell, scale,
  estimate and CI, direction, control risk, outcome SD);
- conversion: the compiler's canonical value of what the sentence states (the gold record, whatever the extractor
  did) is within tolerance of the truth; the naive conversion of the same gold record is the negative control.
"""

from __future__ import annotations

import math

import numpy as np

from neurips26.papers.causal_compile.extractor import Vocabulary, extract_abstract
from neurips26.papers.causal_compile.method import canonicalise
from neurips26.papers.causal_compile.schema import EvidenceError, parse_estimand

LABELS = {"RR": "risk ratio", "OR": "odds ratio", "HR": "hazard ratio", "SMD": "SMD", "MD": "mean difference"}
POPULATION = {"adults": (18.0, None), "older adults": (65.0, None), "younger adults": (18.0, 65.0)}


def _pick(options, rng):
    return options[int(rng.integers(len(options)))]


def _horizon(months: int, forms, rng) -> str:
    forms = [f for f in forms if "{y}" not in f or months % 12 == 0]
    return _pick(forms, rng).format(m=months, y=months // 12, d=round(months * 30.4375))


def _null_in_ci(k: dict) -> bool:
    null = 0.0 if k["scale"] in ("SMD", "MD") else 1.0
    return k["low_text"] <= null <= k["high_text"]


def render(k: dict, names: dict, variables: dict, forms, rng) -> str:
    """One held-out sentence stating kernel k's reported numbers."""
    digits = 1 if k["scale"] == "MD" else 2
    fields = {
        "X": names[k["exposure"]],
        "Y": names[k["outcome"]],
        "dir": "lower" if k["reversed"] else "higher",
        "label": LABELS[k["scale"]],
        "v": f"{k['reported_text']:.{digits}f}",
        "lo": f"{k['low_text']:.{digits}f}",
        "hi": f"{k['high_text']:.{digits}f}",
        "h": _horizon(int(k["horizon"]), list(forms.horizon), rng),
        "pop": "" if k["population"] == "adults" else _pick(list(forms.population[k["population"]]), rng),
        "p0": "",
        "sd": "",
        "unit": "",
        "thr": "",
    }
    if k["outcome_kind"] == "binary":
        if k["scale"] != "RR" and k["p0_reported"]:
            p0 = round(k["baseline_risk"], 3)
            fields["p0"] = _pick(list(forms.p0), rng).format(prop=f"{p0:.3f}", pct=f"{100 * p0:.1f}%")
        templates = list(forms.binary) + (list(forms.binary_null) if _null_in_ci(k) else [])
    else:
        templates = list(forms.continuous[k["scale"]])
        fields.update(sd=f"{k['outcome_sd']:.1f}", unit=k["unit"] or "", thr=f"{k['threshold']:+.1f}")
    return _pick(templates, rng).format(**fields)


def gold_record(k: dict, study_id: str, variables: dict) -> dict:
    """What the held-out sentence states, as a raw record (the schema's fields)."""
    lo, hi = POPULATION[k["population"]]
    record = {
        "study_id": study_id,
        "scale": k["scale"],
        "estimate": float(k["reported_text"]),
        "ci_low": float(k["low_text"]),
        "ci_high": float(k["high_text"]),
        "design": k["design"],
        "contrast": {
            "exposure": k["exposure"],
            "comparator": "reference level",
            "outcome": k["outcome"],
            "delta_sd": -1.0 if k["reversed"] else 1.0,
        },
        "horizon": {"value": float(k["horizon"]), "unit": "month"},
        "population": {"group": k["population"], "min_age": lo, "max_age": hi},
    }
    if k["outcome_kind"] == "binary" and k["scale"] != "RR" and k["p0_reported"]:
        record["baseline_risk"] = round(k["baseline_risk"], 3)
    if k["scale"] == "MD":
        record["outcome_sd"] = round(float(k["outcome_sd"]), 1)
    return record


def _months(horizon: dict | None) -> float | None:
    if not horizon:
        return None
    per = {"day": 1 / 30.4375, "week": 7 / 30.4375, "month": 1.0, "mo": 1.0, "year": 12.0, "yr": 12.0}
    unit = str(horizon.get("unit", "")).lower().rstrip("s")
    return horizon["value"] * per[unit] if unit in per else None


def extracted_right(records: list[dict], gold: dict) -> bool:
    """Exactly one record, stating the gold record's cell, scale, numbers, direction, control risk and outcome SD."""
    if len(records) != 1:
        return False
    r, g = records[0], gold
    months = _months(r.get("horizon"))
    same = [
        r.get("scale") == g["scale"],
        r["contrast"]["exposure"] == g["contrast"]["exposure"],
        r["contrast"]["outcome"] == g["contrast"]["outcome"],
        r["contrast"]["delta_sd"] == g["contrast"]["delta_sd"],
        r.get("population", {}).get("group") == g["population"]["group"],
        months is not None and abs(months - g["horizon"]["value"]) < 0.5,
    ]
    for key in ("estimate", "ci_low", "ci_high", "baseline_risk", "outcome_sd"):
        a, b = r.get(key), g.get(key)
        same.append((a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, abs_tol=1e-9)))
    return all(same)


def _canonical(record: dict, variables: dict, naive: bool) -> float | None:
    try:
        return canonicalise(parse_estimand(dict(record)), variables, "heldout", naive).value
    except EvidenceError:
        return None


def score(truth: list[dict], variables: dict, cfg, seed: int, correct, constant: float) -> list[dict]:
    """One row per well-formed kernel: its held-out sentence, extraction right, and conversion right for the
    compiler, the naive conversion and the degenerate compilers (sign-flipped; constant: `constant`)."""
    rng = np.random.default_rng([seed, 18, 3])
    names = {v: spec["names"][-1] for v, spec in variables.items()}  # the synonym, not the generator's first name
    vocab = Vocabulary(variables)
    rows = []
    for k in truth:
        if k["malformed"]:
            continue
        sentence = render(k, names, variables, cfg.heldout, rng)
        gold = gold_record(k, k["study_id"], variables)
        records = extract_abstract(k["study_id"], sentence, vocab)
        compiled, naive = _canonical(gold, variables, False), _canonical(gold, variables, True)
        values = {
            "compiled": compiled,
            "naive": naive,
            "flipped": None if compiled is None else -compiled,
            "constant": constant,
        }
        rows.append(
            {
                "kernel_id": k["kernel_id"],
                "heldout_sentence": sentence,
                "heldout_extracted": extracted_right(records, gold),
                **{f"heldout_converted_{m}": v is not None and correct(v, k["theta"], cfg) for m, v in values.items()},
            }
        )
    return rows


def bootstrap_interval(values, resamples: int, seed: int = 18, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and percentile interval over kernels resampled with replacement."""
    x = np.asarray(values, float)
    if not len(x):
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(int(resamples), len(x)))].mean(axis=1)
    a = (1 - level) / 2
    return float(x.mean()), float(np.quantile(means, a)), float(np.quantile(means, 1 - a))

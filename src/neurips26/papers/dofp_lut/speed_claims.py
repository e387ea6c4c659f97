"""The claims read from wall-clock and digest files (timing.csv, determinism.csv, realtime.csv): claim 2's speed
rule on equal terms, the deterministic claim and the real-time claims (CPU, decided here; GPU, untested)."""

from __future__ import annotations

import math

import pandas as pd

from neurips26.common.pipeline.claims import Claim, Control, RuleTest

INTERPOLATIONS = ("bilinear", "residual_interp", "polanalyser", "polanalyser_ea")
NAN = float("nan")
NO_TEXT = "the paper's text is not in this repository (abstract only)"


def _time(timing: pd.DataFrame | None, method: str, end: str = "") -> float:
    """A method's equal-terms median ms/MP (end '': the median; '_lo', '_hi': its bootstrap interval)."""
    if timing is None or method not in set(timing.method):
        return NAN
    column = f"equal_terms_ms_per_mp{end}"
    return float(timing.set_index("method")[column].get(method, NAN)) if column in timing else NAN


def fastest_bilinear(timing: pd.DataFrame | None, cfg_claims) -> str | None:
    """The bilinear reference with the smallest median equal-terms time (None when none was timed)."""
    times = {m: _time(timing, m) for m in cfg_claims.bilinear_references}
    times = {m: v for m, v in times.items() if not math.isnan(v)}
    return min(times, key=times.get) if times else None


def speed_measured(timing: pd.DataFrame | None, cfg_claims) -> dict:
    """Every time the speed rule reads (ms/MP, equal terms), for claims.json."""
    names = ("dofp_lut", "teacher", "dofp_lut_torch", *cfg_claims.bilinear_references)
    out = {f"{m}_ms_per_mp": _time(timing, m) for m in names}
    out.update({f"{m}_native_ms_per_mp": (NAN if timing is None or m not in set(timing.method) else
                                          float(timing.set_index("method").get("native_ms_per_mp",
                                                                                pd.Series(dtype=float)).get(m, NAN)))
                for m in ("dofp_lut", *cfg_claims.bilinear_references)})
    return out


def speed_test(method: str, timing: pd.DataFrame | None, c) -> RuleTest:
    """`method`'s time against the teacher's and the fastest bilinear's, on the bootstrap intervals of the medians:
    holds when teacher_lo / method_hi >= teacher_speedup and method_hi / bilinear_lo <= bilinear_factor; fails when
    teacher_hi / method_lo < teacher_speedup or method_lo / bilinear_hi > bilinear_factor; else inconclusive."""
    bil = fastest_bilinear(timing, c) or "none"
    m = {"teacher_over_method_median": _time(timing, "teacher") / _time(timing, method),
         "method_over_bilinear_median": _time(timing, method) / _time(timing, bil),
         "teacher_over_method_low": _time(timing, "teacher", "_lo") / _time(timing, method, "_hi"),
         "teacher_over_method_high": _time(timing, "teacher", "_hi") / _time(timing, method, "_lo"),
         "method_over_bilinear_low": _time(timing, method, "_lo") / _time(timing, bil, "_hi"),
         "method_over_bilinear_high": _time(timing, method, "_hi") / _time(timing, bil, "_lo")}
    return RuleTest(f"speed of {method}: teacher / {method} and {method} / fastest bilinear ({bil}), equal terms", m,
                    holds_if=f"teacher_over_method_low >= {c.teacher_speedup} and "
                             f"method_over_bilinear_high <= {c.bilinear_factor}",
                    fails_if=f"teacher_over_method_high < {c.teacher_speedup} or "
                             f"method_over_bilinear_low > {c.bilinear_factor}",
                    rule="ratios of the timing job's median equal-terms times (one frame, one thread), decided on "
                         "the ends of their 95% bootstrap intervals; not a mean over seeds")


def deterministic_claim(digests: pd.DataFrame | None) -> Claim:
    from neurips26.papers.dofp_lut.determinism import identical

    counts = {} if digests is None else identical(digests)
    threads = NAN if digests is None else float(digests.threads.nunique())
    measured = {"kernel_distinct_outputs": counts.get("dofp_lut", NAN),
                "torch_distinct_outputs": counts.get("dofp_lut_torch", NAN), "thread_counts": threads}
    test = RuleTest("distinct output digests over runs and thread counts", measured,
                    holds_if="kernel_distinct_outputs == 1 and torch_distinct_outputs == 1 and thread_counts >= 2",
                    fails_if="kernel_distinct_outputs > 1 or torch_distinct_outputs > 1",
                    rule="sha256 of every output (several runs at one thread and at all the job's threads): holds when "
                         "each implementation gives one digest over at least two thread counts, fails on any second "
                         "digest")
    control = RuleTest("distinct digests with one run one ulp off at one pixel",
                       {"control_distinct_outputs": counts.get("control_one_ulp", NAN)},
                       holds_if="control_distinct_outputs == 1", fails_if="control_distinct_outputs > 1")
    return Claim("deterministic_inference",
                 "DoFP-LUT inference (nearest-neighbour lookup and fixed write-back) is deterministic: bitwise-identical "
                 "output across runs and thread counts (the fused kernel and the torch reference)",
                 "one sha256 digest per implementation over all runs and thread counts", [test], ["determinism.csv"],
                 {"value": None, "where": f"abstract: 'preserving deterministic, memory-light inference'; {NO_TEXT}"},
                 controls=[Control("one_ulp_difference_is_detected", "negative",
                                   "the same comparison with one run perturbed by one float32 ulp at one pixel: the "
                                   "check must see two digests", control)],
                 why_not_tested=None if digests is not None else "no determinism.csv", measured=measured)


def _rate(realtime: pd.DataFrame | None, method: str) -> dict:
    """fps and its interval for `method` at the most threads realtime.csv has."""
    if realtime is None or method not in set(realtime.method):
        return {"fps": NAN, "fps_lo": NAN, "fps_hi": NAN, "threads": NAN, "fps_one_thread": NAN}
    rows = realtime[realtime.method == method].sort_values("threads")
    top = rows.iloc[-1]
    return {"fps": float(top.fps), "fps_lo": float(top.fps_lo), "fps_hi": float(top.fps_hi),
            "threads": float(top.threads), "fps_one_thread": float(rows.iloc[0].fps)}


def realtime_claims(realtime: pd.DataFrame | None, cfg) -> list[Claim]:
    c = cfg.realtime
    height, width = (int(v) for v in c.frame)
    cpu = _rate(realtime, "dofp_lut")
    device = "cpu" if realtime is None or "device" not in realtime else \
        str(realtime[realtime.method == "dofp_lut"].device.iloc[0]) if "dofp_lut" in set(realtime.method) else "cpu"
    paper = {"value": None, "where": f"abstract: 'real-time color DoFP polarization demosaicking'; {NO_TEXT}"}
    threads = "?" if math.isnan(cpu["threads"]) else int(cpu["threads"])
    cpu_claim = Claim(
        "real_time",
        f"DoFP-LUT (the fused kernel) runs in real time, >= {c.min_fps:g} frames/s, on a {width} x {height} "
        f"colour-polarization frame on the CPU ({device}, {threads} threads; uint16 in, 12 float32 planes out, a "
        "fresh output per frame)",
        f"95% bootstrap interval of the frame rate (median over {c.repeats} frames) above {c.min_fps:g} frames/s; "
        f"fails below",
        [RuleTest("frames per second, fused kernel, all the job's threads", cpu,
                  holds_if=f"fps_lo >= {c.min_fps}", fails_if=f"fps_hi < {c.min_fps}",
                  rule="wall-clock on one machine (realtime.csv), decided on the bootstrap interval of the median")],
        ["realtime.csv"], paper, why_not_tested=None if realtime is not None else "no realtime.csv", measured=cpu)
    gpu = _rate(realtime, "dofp_lut_cuda")
    gpu_claim = Claim(
        "real_time_gpu",
        f"DoFP-LUT runs in real time (>= {c.min_fps:g} frames/s at {width} x {height}) on a GPU",
        "a fused GPU kernel's frame rate (bootstrap interval) above the bar", [], ["realtime.csv"], paper,
        why_not_tested="no fused GPU kernel exists (the `dofp_lut_cuda` path is the multi-pass torch reference, "
                       "whose time is not the method's GPU speed), and this machine has no GPU"
                       + ("" if math.isnan(gpu["fps"]) else f"; the torch reference ran at {gpu['fps']:.1f} frames/s"),
        measured={f"torch_reference_gpu_{k}": v for k, v in gpu.items()})
    return [cpu_claim, gpu_claim]

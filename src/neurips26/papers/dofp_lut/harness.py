"""Equal-terms timing: every method from the camera-native uint16 mosaic to 12 float32 planes (3, 4, H, W).

A method is a `Pipeline` of three declared parts: `to_native` (uint16 mosaic -> the input its code takes), `core`
(native input -> native output) and `to_common` (native output -> the common (3, 4, H, W) float32 array). The
equal-terms time is the whole chain in one timed call (each method pays exactly the conversions it declares, and no
one else's); the native-layout time is `core` alone on a prepared native input; the conversion time is `to_native`
plus `to_common`, timed on their own. Same frame, threads and warm-up for every method; each figure is the median
of the timed calls with a percentile-bootstrap interval of that median. The clock is a parameter, so a test with
stubs of known cost checks the bookkeeping exactly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

PARTS = ("equal_terms", "native", "conversion")


def identity(x):
    return x


@dataclass(frozen=True)
class Pipeline:
    name: str
    core: Callable
    to_native: Callable = identity
    to_common: Callable = identity
    conversions: str = "none"  # the declared conversions, in words (written beside the times)

    def __call__(self, raw16: np.ndarray) -> np.ndarray:
        return self.to_common(self.core(self.to_native(raw16)))


def check_common(out, shape: tuple[int, int]) -> None:
    """Every method must end at the same output: a (3, 4, H, W) float32 numpy array."""
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (3, 4, *shape):
        raise TypeError(f"a pipeline must return a (3, 4, {shape[0]}, {shape[1]}) float32 numpy array, got "
                        f"{type(out).__name__} {getattr(out, 'dtype', None)} {getattr(out, 'shape', None)}")


def _timed(call, arg, clock) -> tuple[float, object]:
    start = clock()
    result = call(arg)
    return clock() - start, result


def measure(pipe: Pipeline, raw16: np.ndarray, warmup: int, repeats: int,
            clock: Callable[[], float] = time.perf_counter) -> dict[str, list[float]]:
    """Seconds per timed call of each part: `repeats` rounds after `warmup` untimed whole calls. Each round times
    the whole chain once, then its three parts one by one (the native input of that round feeds the core)."""
    if raw16.dtype != np.uint16 or raw16.ndim != 2:
        raise TypeError(f"the common input is an (H, W) uint16 mosaic, got {raw16.dtype} {raw16.shape}")
    for _ in range(warmup):
        check_common(pipe(raw16), raw16.shape)
    times = {part: [] for part in PARTS}
    for _ in range(repeats):
        elapsed, out = _timed(pipe, raw16, clock)
        check_common(out, raw16.shape)
        times["equal_terms"].append(elapsed)
        t_in, native_in = _timed(pipe.to_native, raw16, clock)
        t_core, native_out = _timed(pipe.core, native_in, clock)
        t_out, _ = _timed(pipe.to_common, native_out, clock)
        times["native"].append(t_core)
        times["conversion"].append(t_in + t_out)
    return times


def median_interval(values, level: float = 0.95, resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Median and its percentile-bootstrap interval (a fixed resampling seed: the same times give the same interval)."""
    values = np.asarray(values, dtype=float)
    median = float(np.median(values))
    if len(values) < 2 or np.ptp(values) == 0:
        return median, median, median
    res = stats.bootstrap((values,), np.median, confidence_level=level, n_resamples=resamples, method="percentile",
                          random_state=np.random.default_rng(seed))
    return median, float(res.confidence_interval.low), float(res.confidence_interval.high)


def summarise(times: dict[str, list[float]], megapixels: float) -> dict[str, float]:
    """ms per megapixel of each part: median and bootstrap interval (columns `<part>_ms_per_mp[_lo|_hi]`)."""
    row = {}
    for part in PARTS:
        median, lo, hi = median_interval(np.asarray(times[part]) * 1000 / megapixels)
        row.update({f"{part}_ms_per_mp": median, f"{part}_ms_per_mp_lo": lo, f"{part}_ms_per_mp_hi": hi})
    row["repeats"] = len(times["equal_terms"])
    return row

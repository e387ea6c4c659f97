"""Wall-clock measurements (not deterministic; written to files outside the manifest, see the README).

Every method is an equal-terms pipeline (pipelines.py, harness.py): uint16 mosaic in, (3, 4, H, W) float32 out.
* `time_methods`: the protocol of config `timing` (ms per megapixel, one thread, median of repeats with a bootstrap
  interval; the native-layout core and the conversions beside it).
* `throughput`: megapixels per second for several frame sizes, one thread and all the job's threads, plus the memory
  bandwidth of this machine (large array copy) and the bound it implies for the LUT path.
* `realtime`: frames per second on the sensor frame (config `realtime`), per thread count.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import torch

from neurips26.papers.dofp_lut import harness, method

# The least traffic any demosaicker has: read the float32 raw frame once, write the 12 float32 channels once.
BYTES_PER_PIXEL = 4 + 12 * 4


def set_threads(threads: int) -> None:
    """Thread count of every back end the methods use: torch, OpenCV (polanalyser) and Numba (the kernel, if loaded)."""
    import sys

    import cv2

    torch.set_num_threads(threads)
    cv2.setNumThreads(threads)
    if "neurips26.papers.dofp_lut.kernel" in sys.modules:
        sys.modules["neurips26.papers.dofp_lut.kernel"].set_threads(threads)


def agreement(kernel_out, reference) -> float:
    """Fraction of pixels whose 12 channels agree (kernel vs torch reference) up to float rounding."""
    ref = np.asarray(reference)
    diff = np.abs(np.asarray(kernel_out) - ref)
    return float((diff <= 1e-5 + 1e-5 * np.abs(ref)).all(axis=(0, 1)).mean())


def load_models(arrays, cfg) -> tuple[method.Teacher, dict, torch.Tensor]:
    """Teacher, DoFP LUTs and generic table from a run's .npz."""
    teacher = method.Teacher(int(cfg.teacher.hidden))
    teacher.load_state_dict({k[len("teacher."):]: torch.from_numpy(arrays[k]) for k in arrays.files
                             if k.startswith("teacher.")})
    luts = {s: torch.from_numpy(arrays[f"lut_{s}"]) for s in method.STAGES}
    return teacher.eval(), luts, torch.from_numpy(arrays["generic_lut"])


def time_methods(pipes: dict, raw16: np.ndarray, cfg) -> pd.DataFrame:
    """Equal-terms ms per megapixel of every configured method on one uint16 frame (harness.py): the whole chain,
    the native-layout core and the conversions apart, medians with bootstrap intervals (NaN when timing is off)."""
    megapixels = raw16.size / 1e6
    threads = int(cfg.timing.threads)
    set_threads(threads)
    rows = []
    for name in cfg.timing.methods:
        if name not in pipes:  # dofp_lut_cuda without a GPU
            continue
        row = {"method": name, "conversions": pipes[name].conversions, "threads": threads, "megapixels": megapixels}
        if cfg.timing.enabled:
            times = harness.measure(pipes[name], raw16, int(cfg.timing.warmup), int(cfg.timing.repeats))
            row.update(harness.summarise(times, megapixels))
        rows.append(row)
    out = pd.DataFrame(rows)
    out["ms_per_mp"] = out.get("equal_terms_ms_per_mp", np.nan)
    if "dofp_lut" in pipes and "dofp_lut_torch" in pipes and cfg.timing.enabled:
        share = agreement(pipes["dofp_lut"](raw16), pipes["dofp_lut_torch"](raw16))  # the timed kernel = the reference
        out["kernel_agreement"] = np.where(out.method == "dofp_lut", share, np.nan)
    return out


def bandwidth_gb_s(threads: int, megabytes: int = 256, repeats: int = 5) -> float:
    """Copy bandwidth (bytes read + written per second) of a large float32 array with torch's `threads` threads."""
    torch.set_num_threads(threads)
    source = torch.ones(megabytes * 2 ** 20 // 4)
    target = torch.empty_like(source)
    target.copy_(source)
    best = min(_timed(lambda: target.copy_(source)) for _ in range(repeats))
    return 2 * source.numel() * 4 / best / 1e9


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def tile(raw: np.ndarray, height: int, width: int | None = None) -> np.ndarray:
    """A height x width mosaic tiled from `raw` (sides multiples of 4, so the filter array stays aligned)."""
    width = height if width is None else width
    reps = (-(-height // raw.shape[0]), -(-width // raw.shape[1]))
    return np.ascontiguousarray(np.tile(raw, reps)[:height, :width])


def throughput_rows(pipes: dict, raw16: np.ndarray, shapes, methods, thread_counts, repeats: int, bandwidth_mb: int,
                    teacher_max_mp: float = 0.1) -> pd.DataFrame:
    """Equal-terms MP/s (and native-layout MP/s) of every method in `pipes` on every frame shape and thread count,
    one warm-up call, the median of `repeats`; the memory-bandwidth bound as its own row (`bandwidth_bound`)."""
    rows = []
    for threads in thread_counts:
        bound = bandwidth_gb_s(threads, bandwidth_mb) * 1e9 / BYTES_PER_PIXEL / 1e6
        for height, width in shapes:
            frame = tile(raw16, int(height), int(width))
            megapixels = frame.size / 1e6
            base = {"threads": threads, "height": int(height), "width": int(width), "megapixels": megapixels}
            rows.append({"method": "bandwidth_bound", **base, "mp_per_s": bound, "bandwidth_bound_mp_per_s": bound})
            for name in methods:
                if name not in pipes or (name == "teacher" and megapixels > teacher_max_mp):
                    continue
                set_threads(threads)
                times = harness.measure(pipes[name], frame, 1, repeats)
                rows.append({"method": name, **base, "mp_per_s": megapixels / np.median(times["equal_terms"]),
                             "native_mp_per_s": megapixels / np.median(times["native"]),
                             "bandwidth_bound_mp_per_s": bound})
    out = pd.DataFrame(rows)
    out["fraction_of_bound"] = out.mp_per_s / out.bandwidth_bound_mp_per_s
    return out


def throughput(pipes: dict, raw16: np.ndarray, cfg, all_threads: int) -> pd.DataFrame:
    """The pipeline's throughput table (config `throughput`): square frames of the configured sides."""
    c = cfg.throughput
    return throughput_rows(pipes, raw16, [(int(s), int(s)) for s in c.sides], list(c.methods),
                           sorted({1, all_threads}), int(c.repeats), int(c.bandwidth_mb), float(c.teacher_max_mp))


def realtime(pipes: dict, raw16: np.ndarray, cfg, all_threads: int) -> pd.DataFrame:
    """Frames per second on the sensor frame (config `realtime`), equal terms, per method and thread count: the
    median and its bootstrap interval of 1 / seconds per frame (from the timed calls' bootstrap interval)."""
    c = cfg.realtime
    height, width = (int(v) for v in c.frame)
    frame = tile(raw16, height, width)
    rows = []
    for threads in sorted({1, all_threads}):
        for name in c.methods:
            if name not in pipes:
                continue
            set_threads(threads)
            times = harness.measure(pipes[name], frame, int(c.warmup), int(c.repeats))
            median, lo, hi = harness.median_interval(times["equal_terms"])
            native = float(np.median(times["native"]))
            rows.append({"method": name, "device": _device(name), "threads": threads, "height": height,
                         "width": width, "fps": 1 / median, "fps_lo": 1 / hi, "fps_hi": 1 / lo,
                         "native_fps": 1 / native, "ms_per_frame": 1000 * median, "repeats": len(times["native"])})
    return pd.DataFrame(rows)


def _device(name: str) -> str:
    """The device a method ran on, named: the GPU's name, or the CPU's model name (from /proc/cpuinfo on Linux)."""
    import platform

    if name.endswith("_cuda"):
        return f"cuda ({torch.cuda.get_device_name()})"
    try:
        lines = open("/proc/cpuinfo").read().splitlines()
        model = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or platform.machine()
    return f"cpu ({model})"

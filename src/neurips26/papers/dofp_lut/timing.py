"""Wall-clock measurements (not deterministic; written to files outside the manifest, see the README).

* `time_methods`: the protocol of config `timing` (ms per megapixel, one thread, median of repeats).
* `throughput`: megapixels per second for several frame sizes, one thread and all the job's threads, plus the memory
  bandwidth of this machine (large array copy) and the bound it implies for the LUT path.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import torch

from neurips26.papers.dofp_lut import method

# The least traffic any demosaicker has: read the float32 raw frame once, write the 12 float32 channels once.
BYTES_PER_PIXEL = 4 + 12 * 4


def set_threads(threads: int) -> None:
    """Thread count of both back ends the methods use: torch and OpenCV (polanalyser)."""
    import cv2

    torch.set_num_threads(threads)
    cv2.setNumThreads(threads)


def load_models(arrays, cfg) -> tuple[method.Teacher, dict, torch.Tensor]:
    """Teacher, DoFP LUTs and generic table from a run's .npz."""
    teacher = method.Teacher(int(cfg.teacher.hidden))
    teacher.load_state_dict({k[len("teacher."):]: torch.from_numpy(arrays[k]) for k in arrays.files
                             if k.startswith("teacher.")})
    luts = {s: torch.from_numpy(arrays[f"lut_{s}"]) for s in method.STAGES}
    return teacher.eval(), luts, torch.from_numpy(arrays["generic_lut"])


def seconds(run, raw: torch.Tensor, warmup: int, repeats: int) -> float:
    """Median wall-clock seconds of run(raw) after `warmup` untimed calls."""
    for _ in range(warmup):
        run(raw)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run(raw)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def time_methods(runs: dict, raw: torch.Tensor, cfg) -> pd.DataFrame:
    """ms per megapixel of every configured method on one frame (NaN when timing is disabled, e.g. at tiny scale)."""
    megapixels = raw.numel() / 1e6
    set_threads(int(cfg.timing.threads))
    rows = []
    for name in cfg.timing.methods:
        ms = np.nan
        if cfg.timing.enabled:
            ms = 1000 * seconds(runs[name], raw, int(cfg.timing.warmup), int(cfg.timing.repeats)) / megapixels
        rows.append({"method": name, "ms_per_mp": ms, "threads": int(cfg.timing.threads), "megapixels": megapixels})
    return pd.DataFrame(rows)


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


def tile(raw: torch.Tensor, side: int) -> torch.Tensor:
    """A side x side mosaic tiled from `raw` (side and raw's sides multiples of 4, so the filter array stays aligned)."""
    reps = (-(-side // raw.shape[0]), -(-side // raw.shape[1]))
    return raw.repeat(*reps)[:side, :side].contiguous()


def throughput(runs: dict, raw: torch.Tensor, cfg, all_threads: int) -> pd.DataFrame:
    rows = []
    for threads in sorted({1, all_threads}):
        bound = bandwidth_gb_s(threads, int(cfg.throughput.bandwidth_mb)) * 1e9 / BYTES_PER_PIXEL / 1e6
        for side in cfg.throughput.sides:
            frame = tile(raw, int(side))
            megapixels = frame.numel() / 1e6
            for name in cfg.throughput.methods:
                if name == "teacher" and megapixels > float(cfg.throughput.teacher_max_mp):
                    continue
                set_threads(threads)
                elapsed = seconds(runs[name], frame, 1, int(cfg.throughput.repeats))
                rows.append({"method": name, "threads": threads, "side": int(side), "megapixels": megapixels,
                             "mp_per_s": megapixels / elapsed, "bandwidth_bound_mp_per_s": bound,
                             "fraction_of_bound": megapixels / elapsed / bound})
    return pd.DataFrame(rows)

"""Wall-clock measurements (not deterministic; written to files outside the manifest, see the README).

* `time_methods`: the protocol of config `timing` (ms per megapixel, one thread, median of repeats).
* `throughput`: megapixels per second for several frame sizes, one thread and all the job's threads, plus the memory
  bandwidth of this machine (large array copy) and the bound it implies for the LUT path.
* `lut_runs`: DoFP-LUT's implementations: `dofp_lut` = the fused Numba kernel (kernel.py; what the speed claim and
  the pareto figure time), `dofp_lut_torch` = the torch reference (method.lut_demosaic), and `dofp_lut_cuda` = the
  torch reference on the GPU (config `device`: cuda, or auto with a GPU; frame and tables resident on the GPU).
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
    """Thread count of every back end the methods use: torch, OpenCV (polanalyser) and Numba (the kernel, if loaded)."""
    import sys

    import cv2

    torch.set_num_threads(threads)
    cv2.setNumThreads(threads)
    if "neurips26.papers.dofp_lut.kernel" in sys.modules:
        sys.modules["neurips26.papers.dofp_lut.kernel"].set_threads(threads)


def lut_runs(luts: dict, cfg, names) -> dict:
    """The DoFP-LUT implementations among `names` (raw CPU tensor -> channels); the kernel is imported (Numba: compile
    or cache load) only when asked for, the GPU path only when config `device` resolves to cuda."""
    runs = {"dofp_lut_torch": lambda r: method.lut_demosaic(r, luts, cfg.index)}
    if "dofp_lut" in names:
        from neurips26.papers.dofp_lut import kernel

        tables = kernel.tables(luts)
        runs["dofp_lut"] = lambda r: kernel.fused_demosaic(r, tables, cfg.index)
    if "dofp_lut_cuda" in names:
        from neurips26.common.models.device import resolve_device

        if resolve_device(str(cfg.device)) == "cuda":
            runs["dofp_lut_cuda"] = _cuda_run(luts, cfg)
    return runs


def _cuda_run(luts: dict, cfg):
    """The torch reference with frame and tables on the GPU; synchronised so wall-clock covers the kernels. Never run
    on the project's CPU machines (no GPU there): untested in this repository's CI."""
    gpu_luts = {k: v.cuda() for k, v in luts.items()}
    frames = {}

    def run(raw):
        key = (raw.data_ptr(), tuple(raw.shape))
        if key not in frames:  # the frame is uploaded once (a camera pipeline would DMA it in): time the compute
            frames.clear()
            frames[key] = raw.cuda()
        out = method.lut_demosaic(frames[key], gpu_luts, cfg.index)
        torch.cuda.synchronize()
        return out

    return run


def agreement(kernel_out, reference: torch.Tensor) -> float:
    """Fraction of pixels whose 12 channels agree (kernel vs torch reference) up to float rounding."""
    ref = reference.numpy()
    diff = np.abs(np.asarray(kernel_out) - ref)
    return float((diff <= 1e-5 + 1e-5 * np.abs(ref)).all(axis=(0, 1)).mean())


def load_models(arrays, cfg) -> tuple[method.Teacher, dict, torch.Tensor]:
    """Teacher, DoFP LUTs and generic table from a run's .npz."""
    teacher = method.Teacher(int(cfg.teacher.hidden))
    teacher.load_state_dict({k[len("teacher."):]: torch.from_numpy(arrays[k]) for k in arrays.files
                             if k.startswith("teacher.")})
    luts = {s: torch.from_numpy(arrays[f"lut_{s}"]) for s in method.STAGES}
    return teacher.eval(), luts, torch.from_numpy(arrays["generic_lut"])


def seconds(run, raw: torch.Tensor, warmup: int, repeats: int, budget_s: float = float("inf")) -> float:
    """Median wall-clock seconds of run(raw) after `warmup` untimed calls: `repeats` timed calls, fewer (at least one)
    once `budget_s` seconds of timed calls are spent."""
    for _ in range(warmup):
        run(raw)
    times = []
    while len(times) < repeats and (not times or sum(times) < budget_s):
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
        if name not in runs:  # dofp_lut_cuda without a GPU
            continue
        ms = np.nan
        if cfg.timing.enabled:
            ms = 1000 * seconds(runs[name], raw, int(cfg.timing.warmup), int(cfg.timing.repeats)) / megapixels
        rows.append({"method": name, "ms_per_mp": ms, "threads": int(cfg.timing.threads), "megapixels": megapixels})
    if "dofp_lut" in runs and cfg.timing.enabled:  # the timed kernel computes what the evaluated reference computes
        share = agreement(runs["dofp_lut"](raw), runs["dofp_lut_torch"](raw))
        rows = [{**row, "kernel_agreement": share if row["method"] == "dofp_lut" else np.nan} for row in rows]
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


def tile(raw: torch.Tensor, height: int, width: int | None = None) -> torch.Tensor:
    """A height x width mosaic tiled from `raw` (sides multiples of 4, so the filter array stays aligned)."""
    width = height if width is None else width
    reps = (-(-height // raw.shape[0]), -(-width // raw.shape[1]))
    return raw.repeat(*reps)[:height, :width].contiguous()


def throughput_rows(runs: dict, raw: torch.Tensor, shapes, methods, thread_counts, repeats: int, bandwidth_mb: int,
                    teacher_max_mp: float = 0.1, budget_s: float = float("inf")) -> pd.DataFrame:
    """MP/s of every method (skipping those not in `runs`, e.g. the GPU path without a GPU) on every frame shape and
    thread count, and the memory-bandwidth bound as its own row (`bandwidth_bound`), with each rate's fraction of it."""
    rows = []
    for threads in thread_counts:
        bound = bandwidth_gb_s(threads, bandwidth_mb) * 1e9 / BYTES_PER_PIXEL / 1e6
        for height, width in shapes:
            frame = tile(raw, int(height), int(width))
            megapixels = frame.numel() / 1e6
            base = {"threads": threads, "height": int(height), "width": int(width), "megapixels": megapixels}
            rows.append({"method": "bandwidth_bound", **base, "mp_per_s": bound, "bandwidth_bound_mp_per_s": bound})
            for name in methods:
                if name not in runs or (name == "teacher" and megapixels > teacher_max_mp):
                    continue
                set_threads(threads)
                elapsed = seconds(runs[name], frame, 1, repeats, budget_s)
                rows.append({"method": name, **base, "mp_per_s": megapixels / elapsed,
                             "bandwidth_bound_mp_per_s": bound})
    out = pd.DataFrame(rows)
    out["fraction_of_bound"] = out.mp_per_s / out.bandwidth_bound_mp_per_s
    return out


def throughput(runs: dict, raw: torch.Tensor, cfg, all_threads: int) -> pd.DataFrame:
    """The pipeline's throughput table (config `throughput`): square frames of the configured sides."""
    c = cfg.throughput
    return throughput_rows(runs, raw, [(int(s), int(s)) for s in c.sides], list(c.methods), sorted({1, all_threads}),
                           int(c.repeats), int(c.bandwidth_mb), float(c.teacher_max_mp))

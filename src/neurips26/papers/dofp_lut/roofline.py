"""Roofline of the fused kernel: three roofs measured in the kernel's own run, and the kernel's share of the lowest.

* memory roof: copy bandwidth (bytes read + written per second, torch copy of a large array) / 52 bytes per pixel
  (read the float32 mosaic once, write 12 float32 planes once);
* compute roof: a measured vector-FMA peak (float32 GEMM through torch's BLAS, 2 flops per multiply-add: what the
  core's vector units sustain) / the operations the kernel does per pixel (`OPS_PER_PIXEL`, counted from kernel.py);
* gather roof: random single-float gathers per second from tables of the A (17^4 float32), P (17^3 pairs) and H
  (17^4) sizes, with the kernel's 4 + 1 + 1 gathers per pixel: 1 / (4 / rate_A + 1 / rate_P + 1 / rate_H). Random
  indices are the worst case for the caches (the kernel's indices are spatially coherent), so this roof is low.
The lowest roof is what the kernel could attain at best; the kernel's MP/s is reported against it, with a fresh
output per frame and with a reused one, beside the per-stage profile (the kernel stopped after each part).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import torch

BYTES_PER_PIXEL = 4 + 12 * 4
# Arithmetic operations per output pixel of kernel.py (a multiply-add counts 2, a division, square root, rounding or
# comparison 1), by part; counted from the source, for the full kernel (A, P and H on).
OPS_PER_PIXEL = {
    "phase split (4 products per input pixel)": 4,
    "horizontal tent, 4 phase rows x (7 mul + 6 add)": 52,
    "vertical pass: R, B 4 channels each x (3 mul + 1 add); G 4 x (5 mul + 3 add)": 64,
    "colour S0: 3 x (3 add + 1 div)": 12,
    "guide: horizontal and vertical 5-tap (9 + 9), intensity (6), high-pass (2), level (6)": 32,
    "A: 4 residual levels x (select 3, sub, max, div, level 6) + 4 indices x 6": 72,
    "A write-back: 12 multiply-adds": 24,
    "P index: colour sums 8, S0-S2 6, norm 4, 3 divisions, 3 levels x 6, index 4": 43,
    "H index 6, gain 1": 7,
    "P write-back: 3 colours x (half 4, 4 multiply-adds 8)": 36,
    "H gain: 12 products": 12,
}
GATHERS = {"A": 4, "P": 1, "H": 1}
TABLE_ROWS = {"A": 17 ** 4, "P": 17 ** 3, "H": 17 ** 4}
TABLE_WIDTH = {"A": 1, "P": 2, "H": 1}  # floats per row (P: alpha and beta side by side, one 8-byte load)


def ops_per_pixel() -> int:
    return sum(OPS_PER_PIXEL.values())


def roofs(bandwidth_gb_s: float, flops: float, gather_rates: dict[str, float], ops: float | None = None) -> dict:
    """MP/s of each roof from the measured rates (bytes/s in GB/s, flop/s, gathers/s per table)."""
    ops = ops_per_pixel() if ops is None else ops
    memory = bandwidth_gb_s * 1e9 / BYTES_PER_PIXEL / 1e6
    compute = flops / ops / 1e6
    gather = 1 / sum(GATHERS[t] / gather_rates[t] for t in GATHERS) / 1e6
    found = {"memory": memory, "compute": compute, "gather": gather}
    lowest = min(found, key=found.get)
    return {"memory_roof_mp_per_s": memory, "compute_roof_mp_per_s": compute, "gather_roof_mp_per_s": gather,
            "lowest_roof": lowest, "lowest_roof_mp_per_s": found[lowest], "ops_per_pixel": ops}


def share(mp_per_s: float, roof: dict) -> float:
    return mp_per_s / roof["lowest_roof_mp_per_s"]


def fma_peak(threads: int, n: int = 1024, repeats: int = 5) -> float:
    """flop/s of a float32 n x n GEMM (BLAS: vector FMAs at near peak) with `threads` threads; the best of repeats."""
    torch.set_num_threads(threads)
    a, b = torch.rand(n, n), torch.rand(n, n)
    torch.mm(a, b)
    best = min(_seconds(lambda: torch.mm(a, b)) for _ in range(repeats))
    return 2 * n ** 3 / best


def _seconds(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def gather_rates(threads: int, count: int = 1 << 22, repeats: int = 3, seed: int = 0) -> dict[str, float]:
    """Random gathers per second from a table of each stage's size, `threads` threads (Numba, like the kernel)."""
    from neurips26.papers.dofp_lut import gather_bench, kernel

    kernel.set_threads(threads)
    rng = np.random.default_rng(seed)
    out = {}
    for stage, rows in TABLE_ROWS.items():
        table = rng.random(rows * TABLE_WIDTH[stage], dtype=np.float32)
        index = rng.integers(0, rows, count, dtype=np.int32) * TABLE_WIDTH[stage]
        gather_bench.gather_sum(table, index, 4 * threads)  # compile or cache load, warm the caches
        best = min(_seconds(lambda table=table, index=index: gather_bench.gather_sum(table, index, 4 * threads))
                   for _ in range(repeats))
        out[stage] = count / best
    return out


def profile(run, raw: np.ndarray, repeats: int) -> dict[str, float]:
    """ns per pixel of the kernel stopped after each part (kernel.fused_demosaic's `upto`), median of repeats."""
    names = {1: "horizontal", 2: "vertical_guide", 3: "per_pixel_stages", 4: "full"}
    out = {}
    for upto, name in names.items():
        run(raw, upto)
        seconds = [_seconds(lambda upto=upto: run(raw, upto)) for _ in range(repeats)]
        out[f"profile_ns_per_pixel_{name}"] = float(np.median(seconds)) / raw.size * 1e9
    return out


def table(tables, index_cfg, raw: np.ndarray, frames, thread_counts, repeats: int, bandwidth) -> pd.DataFrame:
    """One row per frame and thread count: the three roofs, the kernel's MP/s (fresh and reused output; float32
    mosaic in, its native layout) and its share of the lowest roof, and the profile. `bandwidth(threads)` -> GB/s."""
    from neurips26.papers.dofp_lut import kernel
    from neurips26.papers.dofp_lut.timing import tile

    rows = []
    for threads in thread_counts:
        rates = {"bandwidth_gb_s": bandwidth(threads), "flops": fma_peak(threads)}
        gathers = gather_rates(threads)
        roof = roofs(rates["bandwidth_gb_s"], rates["flops"], gathers)
        kernel.set_threads(threads)
        for height, width in frames:
            frame = tile(raw, int(height), int(width))
            out = np.empty((3, 4, *frame.shape), dtype=np.float32)
            fresh = _median(lambda f=frame: kernel.fused_demosaic(f, tables, index_cfg), repeats)
            reused = _median(lambda f=frame, o=out: kernel.fused_demosaic(f, tables, index_cfg, out=o), repeats)
            mp = frame.size / 1e6
            prof = profile(lambda r, upto: kernel.fused_demosaic(r, tables, index_cfg, upto=upto), frame, repeats)
            rows.append({"threads": threads, "height": int(height), "width": int(width), **rates,
                         **{f"gathers_per_s_{k}": v for k, v in gathers.items()}, **roof,
                         "kernel_mp_per_s": mp / fresh, "kernel_reused_mp_per_s": mp / reused,
                         "share_of_lowest": share(mp / fresh, roof), "reused_share_of_lowest": share(mp / reused, roof),
                         **prof})
    return pd.DataFrame(rows)


def _median(call, repeats: int) -> float:
    call()
    return float(np.median([_seconds(call) for _ in range(repeats)]))

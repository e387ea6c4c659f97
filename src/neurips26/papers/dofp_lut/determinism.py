"""Bitwise determinism of DoFP-LUT inference: the same frame run several times at every thread count must give the
same bytes (sha256 of the (3, 4, H, W) float32 output). Checked for the fused kernel (the timed path) and the torch
reference (the evaluated path). The negative control runs the same comparison on outputs one float32 ulp apart at
a single pixel of one run: the check must call that non-identical (it can fail)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd


def digest(out: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(out, dtype=np.float32).tobytes()).hexdigest()


def perturbed(out: np.ndarray) -> np.ndarray:
    """A copy one ulp away at one pixel (the smallest difference a non-deterministic sum would make)."""
    copy = np.array(out, dtype=np.float32, copy=True)
    flat = copy.reshape(-1)
    flat[flat.size // 2] = np.nextafter(flat[flat.size // 2], np.float32(np.inf))
    return copy


def digest_rows(pipes: dict, raw16: np.ndarray, thread_counts, runs: int, set_threads) -> pd.DataFrame:
    """One row per (implementation, threads, run) with the output digest; then the control's rows: the kernel's
    digests again, the last run's output perturbed by one ulp (implementation `control_one_ulp`)."""
    rows, last = [], None
    for name, pipe in pipes.items():
        for threads in thread_counts:
            set_threads(threads)
            for run in range(runs):
                out = pipe(raw16)
                rows.append({"implementation": name, "threads": threads, "run": run, "sha256": digest(out)})
                last = out if name == "dofp_lut" else last
    if last is not None:
        control = [{**r, "implementation": "control_one_ulp"} for r in rows if r["implementation"] == "dofp_lut"]
        control[-1]["sha256"] = digest(perturbed(last))
        rows += control
    return pd.DataFrame(rows)


def identical(rows: pd.DataFrame) -> dict[str, float]:
    """Per implementation: the number of distinct digests (1 = bitwise identical across runs and thread counts)."""
    return {str(k): float(v) for k, v in rows.groupby("implementation").sha256.nunique().items()}

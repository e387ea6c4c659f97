"""tables/main.csv: quality averaged over test images then seeds, LUT size, teacher activations and ms per megapixel
(DoFP-LUT: the fused kernel; the torch reference's time in ms_per_mp_torch)."""

from __future__ import annotations

import numpy as np
import pandas as pd

METRICS = ["cpsnr", "psnr_s0", "psnr_dolp", "aolp_mae_deg"]
ORDER = ["bilinear", "residual_interp", "polanalyser", "polanalyser_ea", "generic_lut", "teacher", "dofp_lut",
         "dofp_lut_no_A", "dofp_lut_no_P", "dofp_lut_no_H"]


def table_main(runs: pd.DataFrame, timing: pd.DataFrame) -> pd.DataFrame:
    per_seed = runs.groupby(["method", "role", "seed"], sort=False)[METRICS + ["lut_kb", "activation_kb_per_mp"]].mean()
    out = per_seed.groupby(["method", "role"], sort=False).agg(
        **{m: (m, "mean") for m in METRICS}, cpsnr_std=("cpsnr", "std"), psnr_dolp_std=("psnr_dolp", "std"),
        lut_kb=("lut_kb", "mean"), activation_kb_per_mp=("activation_kb_per_mp", "mean")).reset_index()
    out["seeds"] = runs.seed.nunique()
    out["test_images"] = runs.image.nunique()
    ms = timing.set_index("method").ms_per_mp
    out["ms_per_mp"] = out.method.map(ms)  # dofp_lut: the fused kernel
    # DoFP-LUT's other implementations, timed on the same frame: the torch reference (and the GPU path when one ran)
    for name in ("dofp_lut_torch", "dofp_lut_cuda"):
        out[f"ms_per_mp_{name.removeprefix('dofp_lut_')}"] = (out.method == "dofp_lut").map({True: ms.get(name, np.nan)})
    rank = {m: i for i, m in enumerate(ORDER)}
    return out.sort_values("method", key=lambda s: s.map(lambda m: rank.get(m, len(rank)))).reset_index(drop=True)


def table_ablation(runs: pd.DataFrame) -> pd.DataFrame:
    """Component ablation on one seed: the full DoFP-LUT, each stage removed at inference (same tables), and the
    teacher retrained without that stage (then compiled): means over the test images."""
    keep = runs[runs.method.str.startswith("dofp_lut") | (runs.method == "bilinear")]
    out = keep.groupby(["method", "role"], sort=False)[METRICS].mean().reset_index()
    out["seed"] = int(runs.seed.iloc[0])
    return out.reset_index(drop=True)

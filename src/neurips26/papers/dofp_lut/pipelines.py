"""Every timed method as an equal-terms `Pipeline`: camera-native uint16 mosaic in, (3, 4, H, W) float32 out.

Declared conversions (each inside the method's timed call, and timed on its own for the native-layout column):
* torch methods (bilinear, residual interpolation, generic LUT, teacher, DoFP-LUT torch reference): uint16 -> float32
  mosaic (/ 65535) as a tensor; the output tensor is handed over as a numpy view (a copy only if not contiguous);
* the fused kernel (DoFP-LUT, and with every stage off the kernel's bilinear): uint16 -> float32 mosaic; it writes
  (3, 4, H, W) float32 itself;
* OpenCV's bilinear (`cv_bilinear`): reads uint16 as is and writes (3, 4, H, W) float32 itself: no conversion;
* polanalyser (bilinear and edge-aware): reads uint16 as is (its native input; float input it would convert to
  uint16 itself); its native output is four (H, W, 3) BGR uint16 images, stacked, reordered to RGB and scaled into
  (3, 4, H, W) float32;
* the GPU path (`dofp_lut_cuda`, only with a GPU): uint16 -> float32 -> device upload; download of the output; its
  native-layout column is the device compute alone (synchronised).
"""

from __future__ import annotations

import numpy as np
import torch

from neurips26.papers.dofp_lut.cv_bilinear import WHITE, cv2_bilinear
from neurips26.papers.dofp_lut.harness import Pipeline

SCALE = np.float32(1.0 / WHITE)
TORCH_METHODS = ("bilinear", "residual_interp", "generic_lut", "teacher", "dofp_lut_torch")
BILINEAR_REFERENCES = ("bilinear", "bilinear_kernel", "bilinear_cv2", "polanalyser")  # claim 2: the fastest of them


def native_mosaic(raw) -> np.ndarray:
    """The camera-native frame of a float mosaic in [0, 1]: uint16, full scale 65535."""
    raw = raw.numpy() if hasattr(raw, "numpy") else np.asarray(raw)
    return np.round(np.clip(raw, 0.0, 1.0) * WHITE).astype(np.uint16)


def to_float(raw16: np.ndarray) -> np.ndarray:
    return np.multiply(raw16, SCALE, dtype=np.float32)


def to_tensor(raw16: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(to_float(raw16))


def from_tensor(t: torch.Tensor) -> np.ndarray:
    return np.ascontiguousarray(t.detach().cpu().numpy(), dtype=np.float32)


def from_polanalyser(bgr: list) -> np.ndarray:
    """Four (H, W, 3) BGR uint16 images at 0, 45, 90, 135 degrees -> (3 RGB, 4, H, W) float32 / WHITE."""
    h, w, _ = bgr[0].shape
    out = np.empty((3, 4, h, w), dtype=np.float32)
    for a, image in enumerate(bgr):
        for c in range(3):
            np.multiply(image[:, :, 2 - c], SCALE, out=out[c, a], dtype=np.float32)
    return out


def torch_pipeline(name: str, run) -> Pipeline:
    return Pipeline(name, run, to_tensor, from_tensor, "uint16 -> float32 tensor; output tensor -> numpy view")


def kernel_pipeline(name: str, tables, index_cfg, use=("A", "P", "H")) -> Pipeline:
    from neurips26.papers.dofp_lut import kernel

    return Pipeline(name, lambda raw: kernel.fused_demosaic(raw, tables, index_cfg, use=use), to_float,
                    conversions="uint16 -> float32 mosaic")


def polanalyser_pipeline(name: str, variant: str) -> Pipeline:
    import polanalyser as pa

    code = {"": pa.COLOR_PolarRGB, "_EA": pa.COLOR_PolarRGB_EA}[variant]
    return Pipeline(name, lambda raw16: pa.demosaicing(raw16, code), to_common=from_polanalyser,
                    conversions="four BGR uint16 images -> (3, 4, H, W) float32")


def cuda_pipeline(name: str, luts: dict, index_cfg) -> Pipeline:
    """The torch reference with tables resident on the GPU; upload and download are its declared conversions."""
    from neurips26.papers.dofp_lut import method

    gpu_luts = {k: v.cuda() for k, v in luts.items()}

    def core(raw: torch.Tensor) -> torch.Tensor:
        out = method.lut_demosaic(raw, gpu_luts, index_cfg)
        torch.cuda.synchronize()
        return out

    def upload(raw16):
        t = to_tensor(raw16).cuda()
        torch.cuda.synchronize()
        return t

    return Pipeline(name, core, upload, from_tensor, "uint16 -> float32 -> GPU upload; GPU -> host download")


def pipelines(torch_runs: dict, luts: dict, cfg, names) -> dict[str, Pipeline]:
    """The equal-terms pipelines among `names` (torch_runs: name -> (torch raw -> tensor) for the torch methods).
    The kernel is imported (Numba: compile or cache load) only when asked for; the GPU path only with a GPU."""
    out = {n: torch_pipeline(n, torch_runs[n]) for n in TORCH_METHODS if n in names and n in torch_runs}
    if {"dofp_lut", "bilinear_kernel"} & set(names):
        from neurips26.papers.dofp_lut import kernel

        tables = kernel.tables(luts)
        out["dofp_lut"] = kernel_pipeline("dofp_lut", tables, cfg.index)
        out["bilinear_kernel"] = kernel_pipeline("bilinear_kernel", tables, cfg.index, use=())  # every stage off
    if "bilinear_cv2" in names:
        out["bilinear_cv2"] = Pipeline("bilinear_cv2", cv2_bilinear)
    for name, variant in (("polanalyser", ""), ("polanalyser_ea", "_EA")):
        if name in names:
            out[name] = polanalyser_pipeline(name, variant)
    if "dofp_lut_cuda" in names:
        from neurips26.common.models.device import resolve_device

        if resolve_device(str(cfg.device)) == "cuda":
            out["dofp_lut_cuda"] = cuda_pipeline("dofp_lut_cuda", luts, cfg.index)
    return {n: out[n] for n in names if n in out}

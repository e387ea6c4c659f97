"""One run job = one seed: synthesise the scenes, train the teacher and the generic SR-LUT net, compile the LUTs,
evaluate every method and ablation on the test images. Returns deterministic rows and arrays (tables, maps)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch

from neurips26.papers.dofp_lut import baselines, interp, method, metrics, training
from neurips26.papers.dofp_lut.data import make_scenes
from neurips26.papers.dofp_lut.mosaic import stokes

TEST_SEED_OFFSET = 1000  # test scenes draw their polarization from seed + 1000: never the training draws


def methods(luts, generic_table, teacher, cfg) -> dict[str, tuple[str, object]]:
    """name -> (role, raw -> (3, 4, H, W)). Ablations skip one stage of the same compiled LUTs (no retraining)."""
    index = cfg.index
    out = {
        "bilinear": ("baseline", interp.bilinear),
        "residual_interp": ("baseline", interp.residual_interpolation),
        "generic_lut": ("baseline", lambda r: baselines.generic_lut_demosaic(r, generic_table, index)),
        "teacher": ("baseline", lambda r: method.teacher_demosaic(r, teacher, index)),
        "polanalyser": ("outside peer", baselines.polanalyser_demosaic),
        "polanalyser_ea": ("outside peer", lambda r: baselines.polanalyser_demosaic(r, "_EA")),
        "dofp_lut": ("method", lambda r: method.lut_demosaic(r, luts, index)),
    }
    for stage in method.STAGES:
        kept = tuple(s for s in method.STAGES if s != stage)
        out[f"dofp_lut_no_{stage}"] = ("ablation (removed at inference)",
                                       lambda r, kept=kept: method.lut_demosaic(r, luts, index, use=kept))
    return out


def teacher_activation_kb(hidden: int) -> float:
    """Largest live activation of the teacher on a 1-megapixel frame evaluated as a CNN (all pixels at once): input +
    output of one hidden layer, float32; head A runs four times per pixel (one per analyzer)."""
    evaluations = max({"A": 4, "P": 1, "H": 1}.values())
    return evaluations * 1e6 * hidden * 2 * 4 / 1024


def _pool(data_dir: Path, cfg, seed: int) -> tuple[dict, np.random.Generator]:
    rng = np.random.default_rng(seed)
    train_scenes = make_scenes(data_dir, list(cfg.images.train), seed, cfg.scene)
    return training.pixel_pool(train_scenes, int(cfg.train.pool_per_image), rng, cfg), rng


def train_all(data_dir: Path, cfg, seed: int):
    pool, rng = _pool(data_dir, cfg, seed)
    teacher = training.train_teacher(pool, rng, cfg)
    generic = training.train_generic(pool, rng, cfg)
    return teacher, method.compile_luts(teacher), baselines.compile_generic(generic)


def run_ablation(data_dir: Path, cfg, seed: int, drop: str) -> pd.DataFrame:
    """Retrained ablation: the teacher trained without stage `drop` (same pool and seed), compiled, evaluated."""
    use = tuple(s for s in method.STAGES if s != drop)
    pool, rng = _pool(data_dir, cfg, seed)
    luts = method.compile_luts(training.train_teacher(pool, rng, cfg, use))
    rows = []
    for scene in make_scenes(data_dir, list(cfg.images.test), seed + TEST_SEED_OFFSET, cfg.scene):
        estimate = method.lut_demosaic(scene.raw, luts, cfg.index, use=use)
        rows.append({"seed": seed, "method": f"dofp_lut_retrained_no_{drop}", "role": "ablation (retrained)",
                     "image": scene.name, **metrics.evaluate(estimate, scene.truth, int(cfg.evaluation.border),
                                                             float(cfg.evaluation.dolp_threshold))})
    return pd.DataFrame(rows)


def evaluate_all(data_dir: Path, cfg, seed: int, teacher, luts, generic_table) -> tuple[pd.DataFrame, dict]:
    test_scenes = make_scenes(data_dir, list(cfg.images.test), seed + TEST_SEED_OFFSET, cfg.scene)
    lut_kb = sum(method.lut_kilobytes(luts).values())
    sizes = {"dofp_lut": lut_kb, "generic_lut": generic_table.numel() * generic_table.element_size() / 1024}
    rows, maps = [], {}
    crop = _centre(test_scenes[0].raw.shape, int(cfg.evaluation.map_crop))
    maps["truth"] = _polar_maps(test_scenes[0].truth, crop)
    for name, (role, run) in methods(luts, generic_table, teacher, cfg).items():
        for scene in test_scenes:
            estimate = run(scene.raw)
            scores = metrics.evaluate(estimate, scene.truth, int(cfg.evaluation.border),
                                      float(cfg.evaluation.dolp_threshold))
            rows.append({"seed": seed, "method": name, "role": role, "image": scene.name, **scores,
                         "lut_kb": sizes.get(name, sizes["dofp_lut"] if name.startswith("dofp_lut") else 0.0),
                         "activation_kb_per_mp": teacher_activation_kb(int(cfg.teacher.hidden))
                         if name == "teacher" else np.nan})
            if scene is test_scenes[0] and name in ("bilinear", "teacher", "dofp_lut"):
                maps[name] = _polar_maps(estimate, crop)
    arrays = {f"{m}_{k}": v for m, parts in maps.items() for k, v in parts.items()}
    return pd.DataFrame(rows), arrays


def _centre(shape, side: int) -> tuple[slice, slice]:
    side = min(side, *shape)
    top, left = (shape[0] - side) // 2, (shape[1] - side) // 2
    return slice(top, top + side), slice(left, left + side)


def _polar_maps(channels: torch.Tensor, crop) -> dict[str, np.ndarray]:
    """DoLP and AoLP (degrees) of the colour-summed channels, and linear S0 of the green channel, on a crop."""
    s = stokes(channels.sum(dim=0))
    return {k: v[crop].numpy().astype(np.float32) for k, v in
            {"dolp": s["dolp"], "aolp": torch.rad2deg(s["aolp"]), "s0": s["s0"]}.items()}


def run(data_dir: Path, cfg, seed: int) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    teacher, luts, generic_table = train_all(data_dir, cfg, seed)
    rows, maps = evaluate_all(data_dir, cfg, seed, teacher, luts, generic_table)
    weights = {f"teacher.{k}": v.numpy() for k, v in teacher.state_dict().items()}
    tables = {f"lut_{k}": v.numpy() for k, v in luts.items()}
    return rows, {**tables, "generic_lut": generic_table.numpy(), **weights, **{f"map_{k}": v for k, v in maps.items()}}

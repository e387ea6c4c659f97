"""Scenes: scikit-image's bundled colour photographs with synthetic polarization, sensor noise and the mosaic.

The photographs are copied (sha256-checked) by the data_prepare rule into data/raw/dofp_lut_skimage/. Polarization is
drawn per SLIC superpixel (random DoLP and AoLP, so object boundaries are polarization edges), the 12 channels follow
Malus' law exactly, and Poisson-Gaussian noise is added to the raw mosaic (one sample per pixel, as on the sensor).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from neurips26.common.data.images import read_rgb
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.dofp_lut.mosaic import malus, mosaic

IMAGE_FILES = {
    "astronaut": "astronaut.png", "chelsea": "chelsea.png", "coffee": "coffee.png", "rocket": "rocket.jpg",
    "retina": "retina.jpg", "hubble": "hubble_deep_field.jpg", "ihc": "ihc.png", "colorwheel": "color.png",
    "logo": "logo.png", "motorcycle": "motorcycle_left.png",
}


@dataclass
class Scene:
    name: str
    truth: torch.Tensor  # (3, 4, H, W) noiseless channels
    raw: torch.Tensor    # (H, W) noisy mosaic


def load_rgb(data_dir: Path, name: str, max_side: int) -> np.ndarray:
    """A linear-light RGB float image in [0, 1], centre-cropped to at most max_side (a multiple of 4) per side."""
    if name not in IMAGE_FILES:
        raise UserError(f"dofp_lut: unknown image {name!r}; known: {', '.join(IMAGE_FILES)}")
    rgb = read_rgb(data_dir / IMAGE_FILES[name], "dofp_lut_skimage")
    h, w = (min(s, max_side) // 4 * 4 for s in rgb.shape[:2])
    top, left = (rgb.shape[0] - h) // 2, (rgb.shape[1] - w) // 2
    srgb = rgb[top:top + h, left:left + w]
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)  # sRGB -> linear


def polarization_field(rgb: np.ndarray, rng: np.random.Generator, cfg) -> tuple[np.ndarray, np.ndarray]:
    """Per-superpixel DoLP ~ U(0, dolp_max) and AoLP ~ U(0, pi) on SLIC segments of the photograph."""
    from skimage.segmentation import slic

    labels = slic(rgb, n_segments=int(cfg.superpixels), compactness=10.0, start_label=0, channel_axis=-1)
    count = int(labels.max()) + 1
    dolp = rng.uniform(0.0, float(cfg.dolp_max), count)[labels]
    aolp = rng.uniform(0.0, np.pi, count)[labels]
    return dolp, aolp


def make_scene(name: str, rgb: np.ndarray, rng: np.random.Generator, cfg) -> Scene:
    dolp, aolp = polarization_field(rgb, rng, cfg)
    s0 = torch.from_numpy(np.ascontiguousarray(rgb.transpose(2, 0, 1))).float()
    truth = malus(s0, torch.from_numpy(dolp).float(), torch.from_numpy(aolp).float())
    clean = mosaic(truth).numpy()
    noisy = clean + np.sqrt(np.clip(clean, 0, None) / float(cfg.photons)) * rng.standard_normal(clean.shape)
    noisy += float(cfg.read_noise) * rng.standard_normal(clean.shape)
    return Scene(name, truth, torch.from_numpy(np.clip(noisy, 0.0, 1.0)).float())


def make_scenes(data_dir: Path, names: list[str], seed: int, cfg) -> list[Scene]:
    """Scenes of a split, each with its own generator (seed, image index), so splits never share randomness."""
    scenes = []
    for index, name in enumerate(names):
        rng = np.random.default_rng([seed, index, sum(map(ord, name))])
        scenes.append(make_scene(name, load_rgb(data_dir, name, int(cfg.max_side)), rng, cfg))
    return scenes

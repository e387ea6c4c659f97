"""Colour photographs prepared under data/raw/ (scikit-image's bundled images), read with clear errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError


def read_rgb(path: Path, dataset: str) -> np.ndarray:
    """The image at `path` as float RGB in [0, 1] (an alpha channel composited away); UserError naming the file when
    it is missing, unreadable or not a colour image."""
    import skimage.color
    import skimage.io

    if not path.is_file():
        raise UserError(f"{path} is missing; run the data_prepare rule for {dataset}")
    try:
        image = skimage.io.imread(path)
    except Exception as error:  # a truncated or corrupted file: name it, whatever the decoder raised
        raise UserError(f"{path}: cannot read the image ({type(error).__name__}: {error})") from None
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise UserError(f"{path}: expected a colour image, got shape {image.shape}")
    return skimage.color.rgba2rgb(image) if image.shape[2] == 4 else image[..., :3] / 255.0

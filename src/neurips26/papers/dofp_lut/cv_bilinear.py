"""OpenCV's bilinear: the same per-channel normalised convolution as `interp.bilinear`, on OpenCV's separable filter.

It reads the camera-native uint16 mosaic as is (no float copy of the input): each channel's samples are kept by a
bit mask (uint16), filtered by `cv2.sepFilter2D` with the radius-4 tent into float32 (zero border, as the torch
reference) and scaled by 1 / (local sample density x white level) straight into that channel's output plane. Masks
and scales depend only on the frame size and are cached (as `interp._bilinear_weights` caches its own).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from neurips26.papers.dofp_lut.interp import TENT, separable
from neurips26.papers.dofp_lut.mosaic import masks

WHITE = 65535.0  # camera-native full scale: the float mosaic is uint16 / WHITE


@lru_cache(maxsize=8)
def _plan(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per channel: the 0 / 0xFFFF sampling mask (uint16) and 1 / (sample density x WHITE) (float32)."""
    m = masks(height, width).reshape(12, height, width)
    bits = (m.numpy() * 0xFFFF).astype(np.uint16)
    scale = (1.0 / (separable(m, TENT).double() * WHITE)).float().numpy()
    return bits, np.ascontiguousarray(scale)


def cv2_bilinear(raw16: np.ndarray) -> np.ndarray:
    """(H, W) uint16 mosaic -> (3, 4, H, W) float32 channels on the float scale uint16 / WHITE."""
    h, w = raw16.shape
    bits, scale = _plan(h, w)
    taps = TENT.numpy().astype(np.float32)
    out = np.empty((3, 4, h, w), dtype=np.float32)
    planes = out.reshape(12, h, w)
    for c in range(12):
        kept = cv2.bitwise_and(raw16, bits[c])
        filtered = cv2.sepFilter2D(kept, cv2.CV_32F, taps, taps, borderType=cv2.BORDER_CONSTANT)
        cv2.multiply(filtered, scale[c], dst=planes[c])
    return out

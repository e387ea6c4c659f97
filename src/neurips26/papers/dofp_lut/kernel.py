"""The fused single-pass DoFP-LUT inference kernel (Numba, parallel over tiles of the frame).

`method.lut_demosaic` (torch, plane by plane) stays the reference; this kernel computes the same arithmetic in one pass
over the mosaic: per output tile (TILE_ROWS x TILE_COLS pixels, `prange` over tiles, one tile per thread at a time)
  1. horizontal pass over the tile's input rows (+3 rows / columns of halo): the radius-4 tent split by column phase
     (bilinear numerators) and the [1 2 2 2 1]/8 guide filter (reflect padding), into two small tile buffers;
  2. vertical pass: the 12 bilinear channels x0 (numerators / densities; the densities are separable products of a
     per-row and a per-column table, so the zero-padded frame edges come out exactly as the normalised convolution)
     and the guide's relative high-pass, for the tile's rows plus one (the 2x2 detail window looks one row/column on);
  3. per pixel, in registers: the analyzer residuals, the four rotated A indices and their gathers, the A write-back,
     the polarization index (DoLP, cos 2phi, sin 2phi) and the P gather / write-back, the detail window, the H gather
     and gain, and one write of the 12 output channels.
Tile buffers (about 160 KB at 16 x 128) and the three tables (A and H 326 KB each, P 38 KB with alpha and beta of a row
side by side, so one P read is one cache line) fit in a 1 MB L2 together; the frame is read once and the output
written once. Indices are rounded half-to-even like `torch.round`, so kernel and reference agree up to float rounding:
the only differences are rare index levels that flip when an index sits within rounding error of a half level.

Compilation cache: Numba compiles this kernel once per process (a few seconds, `parallel=True`). `cache=True` keeps
the machine code between processes, but Numba's default cache directory is the `__pycache__` beside this file, i.e.
inside the repository (and read-only on some installs). So the cache goes to NUMBA_CACHE_DIR when the user set it,
else to `$XDG_CACHE_HOME/neurips26/numba` (`~/.cache/...`), else to the temp directory: never into the repository, and
no artifact depends on it (a stale or missing cache only costs a recompile).
"""

from __future__ import annotations

import os
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np


def _cache_dir() -> str:
    """A writable directory outside the repository for Numba's compiled-code cache (see the module docstring)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    for candidate in (Path(base) / "neurips26" / "numba", Path(tempfile.gettempdir()) / "neurips26-numba"):
        try:
            candidate.mkdir(parents=True, exist_ok=True)
            if os.access(candidate, os.W_OK):
                return str(candidate)
        except OSError:
            continue
    return ""


if not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = _cache_dir()
    if "numba" in sys.modules:  # imported earlier by another package: its config was read before we set the variable
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

import numba  # noqa: E402
from numba import njit, prange  # noqa: E402

TILE_ROWS, TILE_COLS = 16, 128
LEVELS = 17
EPS = np.float32(1e-4)
TENT = np.array([1, 2, 3, 4, 3, 2, 1], dtype=np.float32) / np.float32(4)  # interp.TENT
GUIDE = np.array([1, 2, 2, 2, 1], dtype=np.float32) / np.float32(8)      # interp.GUIDE
# channel (colour * 4 + analyzer) at (row % 4, col % 4): mosaic.COLOUR_AT / ANALYZER_AT
_ANALYZER_AT = ((2, 1), (3, 0))
_COLOUR_AT = ((0, 1), (1, 2))
CHANNEL = np.array([[_COLOUR_AT[r // 2][c // 2] * 4 + _ANALYZER_AT[r % 2][c % 2] for c in range(4)] for r in range(4)],
                   dtype=np.int64)


@lru_cache(maxsize=16)
def densities(length: int) -> np.ndarray:
    """(length, 4): sum of the tent taps that fall on samples of phase p (index % 4) inside [0, length): the 1-D factor
    of the normalised convolution's density with zero padding (the 2-D density is a sum of row x column products)."""
    out = np.zeros((length, 4), dtype=np.float32)
    for i in range(length):
        for k in range(7):
            j = i + k - 3
            if 0 <= j < length:
                out[i, j % 4] += TENT[k]
    return out


@njit(inline="always")
def _reflect(i, n):
    if i < 0:
        return -i
    if i >= n:
        return 2 * (n - 1) - i
    return i


@njit(inline="always")
def _round_half_even(v):
    """torch.round of v in [0, 16]: nearest integer, ties to even (exact in float32: v - floor(v) is exact here)."""
    i = np.int64(v)
    frac = v - np.float32(i)
    if frac > np.float32(0.5) or (frac == np.float32(0.5) and (i & 1) == 1):
        i += 1
    return i


@njit(inline="always")
def _level(v, half_range):
    """Nearest of the 17 lattice levels of a value in [-half_range, half_range] (to_unit, clamp, round half-even)."""
    u = np.float32(0.5) + v / (np.float32(2.0) * half_range)
    u = min(max(u, np.float32(0.0)), np.float32(1.0))
    return _round_half_even(u * np.float32(LEVELS - 1))


@njit(inline="always")
def _unit_level(u):
    u = min(max(u, np.float32(0.0)), np.float32(1.0))
    return _round_half_even(u * np.float32(LEVELS - 1))


@njit(parallel=True, cache=True, nogil=True, error_model="numpy")
def _fused(raw, lut_a, lut_p, lut_h, dv, dh, tent, gtaps, channel, residual_range, detail_range,
           use_a, use_p, use_h, tile_rows, tile_cols, out):
    h, w = raw.shape
    n_ty = (h + tile_rows - 1) // tile_rows
    n_tx = (w + tile_cols - 1) // tile_cols
    for t in prange(n_ty * n_tx):
        y0 = (t // n_tx) * tile_rows
        x0 = (t % n_tx) * tile_cols
        y1 = min(y0 + tile_rows, h)
        x1 = min(x0 + tile_cols, w)
        ye = min(y1 + 1, h)  # rows (and columns) of x0 / detail computed: the tile plus one for the 2x2 window
        xe = min(x1 + 1, w)
        nr = ye - y0
        nc = xe - x0
        # 1. horizontal pass: bilinear numerators per column phase (zero padding), guide (reflect padding)
        hb = np.zeros((4, nr + 6, nc), dtype=np.float32)
        gh = np.empty((nr + 4, nc), dtype=np.float32)
        row = np.zeros(nc + 6, dtype=np.float32)  # raw row x0-3 .. xe+2, zero outside the frame
        for i in range(nr + 6):
            r = y0 - 3 + i
            if r < 0 or r >= h:
                continue
            for j in range(nc + 6):
                xx = x0 + j - 3
                row[j] = raw[r, xx] if xx >= 0 and xx < w else np.float32(0.0)
            for j in range(nc):
                m = x0 + j + 1  # column phase of tap k is (m + k) & 3
                for k in range(7):
                    hb[(m + k) & 3, i, j] += tent[k] * row[j + k]
        grow = np.empty(nc + 4, dtype=np.float32)  # raw row, columns x0-2 .. xe+1 reflected at the frame edges
        for i in range(nr + 4):
            r = _reflect(y0 - 2 + i, h)
            for j in range(nc + 4):
                grow[j] = raw[r, _reflect(x0 + j - 2, w)]
            for j in range(nc):
                gh[i, j] = (gtaps[0] * grow[j] + gtaps[1] * grow[j + 1] + gtaps[2] * grow[j + 2]
                            + gtaps[3] * grow[j + 3] + gtaps[4] * grow[j + 4])
        # 2. vertical pass: the 12 bilinear channels and the guide's relative high-pass (detail) on nr x nc pixels
        xb = np.zeros((12, nr, nc), dtype=np.float32)
        den = np.zeros((12, nc), dtype=np.float32)
        db = np.empty((nr, nc), dtype=np.float32)
        for yi in range(nr):
            y = y0 + yi
            for k in range(7):
                rp = (y + k - 3) & 3
                for cp in range(4):
                    c = channel[rp, cp]
                    wk = tent[k]
                    for j in range(nc):
                        xb[c, yi, j] += wk * hb[cp, yi + k, j]
            den[:, :] = 0
            for rp in range(4):
                a = dv[y, rp]
                for cp in range(4):
                    c = channel[rp, cp]
                    for j in range(nc):
                        den[c, j] += a * dh[x0 + j, cp]
            for c in range(12):
                for j in range(nc):
                    xb[c, yi, j] = xb[c, yi, j] / den[c, j]
            for j in range(nc):
                g = np.float32(0.0)
                for k in range(5):
                    g += gtaps[k] * gh[yi + k, j]
                inten = (xb[0, yi, j] + xb[1, yi, j] + xb[2, yi, j] + xb[3, yi, j]
                         + np.float32(2.0) * (xb[4, yi, j] + xb[5, yi, j] + xb[6, yi, j] + xb[7, yi, j])
                         + xb[8, yi, j] + xb[9, yi, j] + xb[10, yi, j] + xb[11, yi, j]) / np.float32(16.0)
                db[yi, j] = (g - inten) / max(inten, EPS)
        # 3. per pixel: indices, gathers, write-backs
        x = np.empty(12, dtype=np.float32)
        s0c = np.empty(3, dtype=np.float32)
        res = np.empty(4, dtype=np.float32)
        q = np.empty(4, dtype=np.int64)
        for yi in range(y1 - y0):
            y = y0 + yi
            yn = min(y + 1, h - 1)
            for j in range(x1 - x0):
                xx = x0 + j
                xn = min(xx + 1, w - 1)
                for c in range(12):
                    x[c] = xb[c, yi, j]
                for c in range(3):
                    s0c[c] = (x[4 * c] + x[4 * c + 1] + x[4 * c + 2] + x[4 * c + 3]) / np.float32(2.0)
                if use_a:
                    for a in range(4):
                        res[a] = np.float32(0.0)
                    for o in range(4):
                        sy = y if o < 2 else yn
                        sx = xx if o % 2 == 0 else xn
                        ch = channel[sy & 3, sx & 3]
                        res[ch & 3] = (raw[sy, sx] - x[ch]) / max(s0c[ch >> 2], EPS)
                    for a in range(4):
                        q[a] = _level(res[a], residual_range)
                    for a in range(4):
                        idx = ((q[a] * LEVELS + q[(a + 1) & 3]) * LEVELS + q[(a + 2) & 3]) * LEVELS + q[(a + 3) & 3]
                        corr = lut_a[idx]
                        for c in range(3):
                            x[4 * c + a] += s0c[c] * corr
                if use_p:
                    t0 = x[0] + x[4] + x[8]
                    t1 = x[1] + x[5] + x[9]
                    t2 = x[2] + x[6] + x[10]
                    t3 = x[3] + x[7] + x[11]
                    s0 = (t0 + t1 + t2 + t3) / np.float32(2.0)
                    s1 = t0 - t2
                    s2 = t1 - t3
                    norm = np.sqrt(s1 * s1 + s2 * s2)
                    dolp = min(max(norm / max(s0, EPS), np.float32(0.0)), np.float32(1.0))
                    cosv = (s1 / max(norm, EPS) + np.float32(1.0)) / np.float32(2.0)
                    sinv = (s2 / max(norm, EPS) + np.float32(1.0)) / np.float32(2.0)
                    idx = (_unit_level(dolp) * LEVELS + _unit_level(cosv)) * LEVELS + _unit_level(sinv)
                    alpha = lut_p[idx, 0]
                    beta = lut_p[idx, 1]
                    for c in range(3):
                        half = (x[4 * c] + x[4 * c + 1] + x[4 * c + 2] + x[4 * c + 3]) / np.float32(2.0)
                        x[4 * c] += half * alpha
                        x[4 * c + 1] += half * beta
                        x[4 * c + 2] += half * -alpha
                        x[4 * c + 3] += half * -beta
                if use_h:
                    yl = yn - y0
                    jl = xn - x0
                    idx = ((_level(db[yi, j], detail_range) * LEVELS + _level(db[yi, jl], detail_range)) * LEVELS
                           + _level(db[yl, j], detail_range)) * LEVELS + _level(db[yl, jl], detail_range)
                    gain = np.float32(1.0) + lut_h[idx]
                    for c in range(12):
                        x[c] *= gain
                for c in range(12):
                    out[c, y, xx] = x[c]


def set_threads(threads: int) -> None:
    """Numba's share of the job's threads (at most the pool it started with)."""
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def tables(luts: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three tables as contiguous float32 arrays (A, H flat; P as rows of (alpha, beta))."""
    arrays = [np.ascontiguousarray(np.asarray(luts[s].cpu() if hasattr(luts[s], "cpu") else luts[s],
                                              dtype=np.float32)) for s in ("A", "P", "H")]
    return arrays[0].reshape(-1), arrays[1].reshape(-1, 2), arrays[2].reshape(-1)


def fused_demosaic(raw, luts, cfg, use=("A", "P", "H"), tile=(TILE_ROWS, TILE_COLS)) -> np.ndarray:
    """raw (H, W) float32 mosaic (numpy or CPU torch) -> (3, 4, H, W) float32 numpy channels, same arithmetic as
    `method.lut_demosaic(raw, luts, cfg, use)`."""
    raw = np.ascontiguousarray(raw.numpy() if hasattr(raw, "numpy") else raw, dtype=np.float32)
    if raw.ndim != 2 or min(raw.shape) < 3:
        raise ValueError(f"fused_demosaic needs an (H, W) mosaic with H, W >= 3, got shape {raw.shape}")
    h, w = raw.shape
    lut_a, lut_p, lut_h = luts if isinstance(luts, tuple) else tables(luts)
    out = np.empty((3, 4, h, w), dtype=np.float32)
    _fused(raw, lut_a, lut_p, lut_h, densities(h), densities(w), TENT, GUIDE, CHANNEL,
           np.float32(cfg.residual_range), np.float32(cfg.detail_range), "A" in use, "P" in use, "H" in use,
           int(tile[0]), int(tile[1]), out.reshape(12, h, w))
    return out

"""The fused single-pass DoFP-LUT inference kernel (Numba, parallel over runs of tiles of the frame).

`method.lut_demosaic` (torch, plane by plane) stays the reference; this kernel computes the same arithmetic in one pass
over the mosaic. Per output tile (TILE_ROWS x TILE_COLS pixels; `prange` over a few contiguous runs of tiles per
thread, each run with its own scratch buffers, allocated once):
  1. horizontal passes over the tile's input rows (+3 rows / columns of halo): the radius-4 tent split by column phase
     (bilinear numerators; rows outside the frame are zero) and the [1 2 2 2 1]/8 guide filter (reflect padding);
  2. per row, the vertical pass, one loop per channel: numerator of its one (R, B) or two (G) phases from the two
     row taps of each phase, over the density (row weight x column density, tabulated once per frame size, so the
     zero-padded frame edges come out exactly as the normalised convolution); the colours' S0; the guide's relative
     high-pass, quantised once per pixel (the 2x2 detail window then reads four stored levels);
  3. per row (one row behind, since the 2x2 windows look one row on), the table stages: the four analyzer residual
     levels, the four rotated A indices, the A gathers and write-back, the polarization index (DoLP, cos 2phi,
     sin 2phi), the P gather and write-back, the H index, gather and gain, and one write of the 12 output channels.
Every inner loop runs over contiguous x and touches at most a few distinct rows, and every per-pixel choice (which
sample of the 2x2 window holds an analyzer, which colour it has) is a select on both loaded candidates: so LLVM
vectorises the loops (AVX2) and keeps its run-time alias checks within its limit; the levels round with llvm.rint
(round half to even like `torch.round`, one vector instruction); the table gathers run in their own short scalar
loops. Float32 throughout, no fastmath (the equality test relies on the same float operations in the same order).
Kernel and reference agree up to float rounding: the only differences are rare index levels that flip when an index
sits within rounding error of a half level.

Compilation cache: Numba compiles this kernel once per process (about 40 s on this 2-core machine). `cache=True` keeps
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

TILE_ROWS, TILE_COLS = 16, 512
LEVELS = 17
EPS = np.float32(1e-4)
TENT = np.array([1, 2, 3, 4, 3, 2, 1], dtype=np.float32) / np.float32(4)  # interp.TENT
GUIDE = np.array([1, 2, 2, 2, 1], dtype=np.float32) / np.float32(8)      # interp.GUIDE
# channel (colour * 4 + analyzer) at (row % 4, col % 4): mosaic.COLOUR_AT / ANALYZER_AT
_ANALYZER_AT = ((2, 1), (3, 0))
_COLOUR_AT = ((0, 1), (1, 2))
CHANNEL = np.array([[_COLOUR_AT[r // 2][c // 2] * 4 + _ANALYZER_AT[r % 2][c % 2] for c in range(4)] for r in range(4)],
                   dtype=np.int64)
# per channel its (row phase, column phase) in the 4x4 cell, and a second one for G (-1, -1 for R and B)
PHASES = np.array([[p for rc in [(r, c) for r in range(4) for c in range(4) if CHANNEL[r, c] == ch] for p in rc]
                   + [-1, -1] * (2 - int((CHANNEL == ch).sum())) for ch in range(12)], dtype=np.int64)


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
    """torch.round of v in [0, 16]: nearest integer, ties to even (llvm.rint: one branch-free vector instruction)."""
    return np.int32(np.rint(v))


@njit(inline="always")
def _clamp01(u):
    u = u if u > np.float32(0.0) else np.float32(0.0)
    return u if u < np.float32(1.0) else np.float32(1.0)


@njit(inline="always")
def _level(v, scale):
    """Nearest of the 17 lattice levels of v in [-half_range, half_range]: features.to_unit then quantise, with
    scale = 2 * half_range (the same float32 operations in the same order as the torch reference)."""
    return _round_half_even(_clamp01(np.float32(0.5) + v / scale) * np.float32(LEVELS - 1))


@njit(inline="always")
def _unit_level(u):
    return _round_half_even(_clamp01(u) * np.float32(LEVELS - 1))


@njit(inline="always")
def _atleast(v, lo):
    return v if v > lo else lo


@njit(inline="always")
def _channel_row(xrow, ha, hb, hc, hd, wa, wb, wc, wd, da, dc, ea, ec, two, nc):
    """One bilinear channel on one row: (numerator of its one or two phases) / (its density), the numerator from the
    horizontally filtered rows of each phase's row taps, the density as row weight x column density per phase."""
    if two:
        for j in range(nc):
            xrow[j] = (wa * ha[j] + wb * hb[j] + (wc * hc[j] + wd * hd[j])) / (ea * da[j] + ec * dc[j])
    else:
        for j in range(nc):
            xrow[j] = (wa * ha[j] + wb * hb[j]) / (ea * da[j])


@njit(nogil=True, error_model="numpy", cache=True)
def _tile(raw, lut_a, lut_p, lut_h, dv, dht, tent, gtaps, phases, scale_r, scale_d, use_a, use_p, use_h, upto,
          y0, x0, y1, x1, out, zm, grow, habs, gh, xb, qd, rows, ia, vals, xr):
    """One output tile [y0, y1) x [x0, x1): horizontal passes, then row by row the vertical pass (x0, S0, detail
    levels of row yi) and the per-pixel stages of row yi - 1. Every inner loop runs over contiguous x and touches few
    distinct rows, so that LLVM vectorises it (its run-time alias checks stay under its limit); the table gathers run
    in their own short loops."""
    h, w = raw.shape
    ye = min(y1 + 1, h)  # x0 / detail rows: the tile plus one (the 2x2 window looks one row / column on)
    xe = min(x1 + 1, w)
    nr = ye - y0
    nc = xe - x0
    nt = x1 - x0
    # 1. horizontal passes over the input rows y0-3 .. ye+2 (bilinear, zero padding; rows outside the frame are zero)
    #    and y0-2 .. ye+1 (guide, reflect padding)
    for i in range(nr + 6):
        r = y0 - 3 + i
        if r < 0 or r >= h:
            for cp in range(4):
                hrow = habs[i, cp]
                for j in range(nc):
                    hrow[j] = np.float32(0.0)
            continue
        for cp in range(4):
            zrow = zm[cp]
            for j in range(nc + 6):
                zrow[j] = np.float32(0.0)
        for j in range(nc + 6):
            xx = x0 - 3 + j
            if xx >= 0 and xx < w:
                zm[xx & 3, j] = raw[r, xx]
        for cp in range(4):
            zrow = zm[cp]
            hrow = habs[i, cp]
            for j in range(nc):
                hrow[j] = (tent[0] * zrow[j] + tent[1] * zrow[j + 1] + tent[2] * zrow[j + 2] + tent[3] * zrow[j + 3]
                           + tent[4] * zrow[j + 4] + tent[5] * zrow[j + 5] + tent[6] * zrow[j + 6])
    if upto < 2:  # profiling: the horizontal passes only
        return
    if use_h:
        for i in range(nr + 4):
            r = _reflect(y0 - 2 + i, h)
            for j in range(nc + 4):
                grow[j] = raw[r, _reflect(x0 - 2 + j, w)]
            grow_h = gh[i]
            for j in range(nc):
                grow_h[j] = (gtaps[0] * grow[j] + gtaps[1] * grow[j + 1] + gtaps[2] * grow[j + 2]
                             + gtaps[3] * grow[j + 3] + gtaps[4] * grow[j + 4])
    for yi in range(nr):
        y = y0 + yi
        s = yi & 1
        xs = xb[s]
        # 2. vertical pass, one loop per channel: the row taps of row phase rp are k0 = (rp - y + 3) & 3 and k0 + 4
        for c in range(12):
            rp, cp, rp2, cp2 = phases[c, 0], phases[c, 1], phases[c, 2], phases[c, 3]
            ka = (rp - y + 3) & 3
            kb = ka + 4 if ka < 3 else ka
            wb = tent[kb] if ka < 3 else np.float32(0.0)
            two = rp2 >= 0
            kc = (rp2 - y + 3) & 3 if two else ka
            kd = kc + 4 if kc < 3 else kc
            wd = tent[kd] if kc < 3 else np.float32(0.0)
            _channel_row(xs[c], habs[yi + ka, cp], habs[yi + kb, cp], habs[yi + kc, cp2 if two else cp],
                         habs[yi + kd, cp2 if two else cp], tent[ka], wb, tent[kc], wd,
                         dht[cp, x0:x0 + nc], dht[cp2 if two else cp, x0:x0 + nc], dv[y, rp],
                         dv[y, rp2] if two else np.float32(0.0), two, nc)
        for col in range(3):
            srow, xa, xb1, xc, xd = xs[12 + col], xs[4 * col], xs[4 * col + 1], xs[4 * col + 2], xs[4 * col + 3]
            for j in range(nc):
                srow[j] = (xa[j] + xb1[j] + xc[j] + xd[j]) / np.float32(2.0)
        if use_h:
            g = vals[7]
            g0, g1, g2, g3, g4 = gh[yi], gh[yi + 1], gh[yi + 2], gh[yi + 3], gh[yi + 4]
            for j in range(nc):
                g[j] = gtaps[0] * g0[j] + gtaps[1] * g1[j] + gtaps[2] * g2[j] + gtaps[3] * g3[j] + gtaps[4] * g4[j]
            qrow, sr, sg, sb = qd[s], xs[12], xs[13], xs[14]
            for j in range(nc):
                # (sum R + 2 sum G + sum B) / 16 of the init, from the colours' S0 (= sum / 2; doubling is exact)
                inten = (np.float32(2.0) * sr[j] + np.float32(2.0) * (np.float32(2.0) * sg[j])
                         + np.float32(2.0) * sb[j]) / np.float32(16.0)
                qrow[j] = _level((g[j] - inten) / _atleast(inten, EPS), scale_d)
            qrow[nc] = qrow[nc - 1]  # replicated right border (used only when the tile ends at the frame's edge)
        if yi >= 1 and upto >= 3:
            _pixels(raw, lut_a, lut_p, lut_h, scale_r, use_a, use_p, use_h, y - 1, x0, nt, yi - 1, s, out,
                    xb, qd, rows, ia, vals, xr)
    if nr == y1 - y0 and upto >= 3:  # the tile ends at the frame's bottom edge: its last row's window repeats that row
        _pixels(raw, lut_a, lut_p, lut_h, scale_r, use_a, use_p, use_h, y1 - 1, x0, nt, nr - 1, (nr - 1) & 1, out,
                xb, qd, rows, ia, vals, xr)


@njit(inline="always")
def _residual_levels(q, r, i0, i1, l0, l1, x0, nt, ca, valid_row, w, scale_r):
    """Levels of one analyzer's residual along the row: at pixel x its sample in the 2x2 window is at column x or x + 1
    (the one of parity ca; zero when the window leaves the frame), minus the init of that sample's channel here, over
    that colour's S0. The colour is the sample's row band + column band: candidates 0 / 1 are the row band's colour
    and the next one. Every operand is loaded unconditionally and chosen by selects, so the loop vectorises."""
    for j in range(nt):
        x = x0 + j
        odd = ((x ^ ca) & 1) == 1
        sample = r[j + 1] if odd else r[j]
        band = (((x + 1) >> 1) & 1) if odd else ((x >> 1) & 1)
        init = i1[j] if band == 1 else i0[j]
        level = l1[j] if band == 1 else l0[j]
        res = (sample - init) / _atleast(level, EPS)
        ok = valid_row & ((x + 1 < w) | (not odd))
        q[j] = _level(res if ok else np.float32(0.0), scale_r)


@njit(inline="always")
def _rotated_index(out, qa, qb, qc, qd, nt):
    for j in range(nt):
        out[j] = ((qa[j] * LEVELS + qb[j]) * LEVELS + qc[j]) * LEVELS + qd[j]


@njit(nogil=True, error_model="numpy", cache=True)
def _pixels(raw, lut_a, lut_p, lut_h, scale_r, use_a, use_p, use_h, y, x0, nt, yi, sn, out, xb, qd, rows, ia,
            vals, xr):
    """Per-pixel stages of output row y (tile row yi; sn = ring slot of the next row's detail levels). Buffers: xb[s]
    rows 0-11 the init channels, 12-14 the colours' S0; ia rows 0-3 the analyzer levels, 4-7 the A indices, 8 the P
    and 9 the H index; vals rows 0-3 the A corrections, 4-5 alpha / beta, 6 the H gain, 8-11 sums; xr the channels."""
    h, w = raw.shape
    s = yi & 1
    xs = xb[s]
    yn = min(y + 1, h - 1)
    if use_a:
        rows[0, :nt] = raw[y, x0:x0 + nt]
        rows[1, :nt] = raw[yn, x0:x0 + nt]
        rows[0, nt] = raw[y, min(x0 + nt, w - 1)]
        rows[1, nt] = raw[yn, min(x0 + nt, w - 1)]
        # analyzer a sits at (row parity, column parity) = (1,1), (0,1), (0,0), (1,0) for a = 0, 1, 2, 3
        for a in range(4):
            ra = (y & 1) ^ (1 if a == 0 or a == 3 else 0)  # 1: the sample is in the next row
            ca = 1 if a < 2 else 0
            b = ((y + ra) >> 1) & 1
            _residual_levels(ia[a], rows[ra], xs[4 * b + a], xs[4 * b + 4 + a], xs[12 + b], xs[13 + b], x0, nt, ca,
                             ra == 0 or y + 1 < h, w, scale_r)
        _rotated_index(ia[4], ia[0], ia[1], ia[2], ia[3], nt)
        _rotated_index(ia[5], ia[1], ia[2], ia[3], ia[0], nt)
        _rotated_index(ia[6], ia[2], ia[3], ia[0], ia[1], nt)
        _rotated_index(ia[7], ia[3], ia[0], ia[1], ia[2], nt)
        for a in range(4):
            corr, idx = vals[a], ia[4 + a]
            for j in range(nt):
                corr[j] = lut_a[idx[j]]
        for c in range(3):
            sc = xs[12 + c]
            for a in range(4):
                xo, xi, corr = xr[4 * c + a], xs[4 * c + a], vals[a]
                for j in range(nt):
                    xo[j] = xi[j] + sc[j] * corr[j]
    else:
        for c in range(12):
            xo, xi = xr[c], xs[c]
            for j in range(nt):
                xo[j] = xi[j]
    if use_p:
        for a in range(4):
            t, xa, xb1, xc = vals[8 + a], xr[a], xr[4 + a], xr[8 + a]
            for j in range(nt):
                t[j] = xa[j] + xb1[j] + xc[j]
        t0, t1, t2, t3, pidx = vals[8], vals[9], vals[10], vals[11], ia[8]
        for j in range(nt):
            s0 = (t0[j] + t1[j] + t2[j] + t3[j]) / np.float32(2.0)
            s1 = t0[j] - t2[j]
            s2 = t1[j] - t3[j]
            norm = np.sqrt(s1 * s1 + s2 * s2)
            nm = _atleast(norm, EPS)
            pidx[j] = ((_unit_level(norm / _atleast(s0, EPS)) * LEVELS
                        + _unit_level((s1 / nm + np.float32(1.0)) / np.float32(2.0))) * LEVELS
                       + _unit_level((s2 / nm + np.float32(1.0)) / np.float32(2.0)))
        alpha, beta = vals[4], vals[5]
        for j in range(nt):
            alpha[j] = lut_p[pidx[j], 0]
            beta[j] = lut_p[pidx[j], 1]
        for c in range(3):
            half, xa, xb1, xc, xd = vals[8 + c], xr[4 * c], xr[4 * c + 1], xr[4 * c + 2], xr[4 * c + 3]
            for j in range(nt):
                half[j] = (xa[j] + xb1[j] + xc[j] + xd[j]) / np.float32(2.0)
            for j in range(nt):
                xa[j] += half[j] * alpha[j]
            for j in range(nt):
                xb1[j] += half[j] * beta[j]
            for j in range(nt):
                xc[j] += half[j] * -alpha[j]
            for j in range(nt):
                xd[j] += half[j] * -beta[j]
    if use_h:
        hidx, q0, q1, gain = ia[9], qd[s], qd[sn], vals[6]
        for j in range(nt):
            hidx[j] = ((q0[j] * LEVELS + q0[j + 1]) * LEVELS + q1[j]) * LEVELS + q1[j + 1]
        for j in range(nt):
            gain[j] = np.float32(1.0) + lut_h[hidx[j]]
        for c in range(12):
            orow, xo = out[c, y, x0:x0 + nt], xr[c]
            for j in range(nt):
                orow[j] = xo[j] * gain[j]
    else:
        for c in range(12):
            orow, xo = out[c, y, x0:x0 + nt], xr[c]
            for j in range(nt):
                orow[j] = xo[j]


@njit(parallel=True, cache=True, nogil=True, error_model="numpy")
def _fused(raw, lut_a, lut_p, lut_h, dv, dht, tent, gtaps, phases, residual_range, detail_range,
           use_a, use_p, use_h, upto, tile_rows, tile_cols, chunks, out):
    h, w = raw.shape
    n_ty = (h + tile_rows - 1) // tile_rows
    n_tx = (w + tile_cols - 1) // tile_cols
    n_tiles = n_ty * n_tx
    chunks = max(1, min(chunks, n_tiles))
    scale_r = np.float32(2.0) * residual_range
    scale_d = np.float32(2.0) * detail_range
    for chunk in prange(chunks):  # contiguous runs of tiles (row bands); scratch allocated once per run
        tr, tc = tile_rows, tile_cols
        zm = np.empty((4, tc + 7), dtype=np.float32)
        grow = np.empty(tc + 5, dtype=np.float32)
        habs = np.empty((tr + 7, 4, tc + 1), dtype=np.float32)
        gh = np.empty((tr + 5, tc + 1), dtype=np.float32)
        xb = np.empty((2, 15, tc + 1), dtype=np.float32)
        qd = np.zeros((2, tc + 2), dtype=np.int32)
        rows = np.empty((2, tc + 1), dtype=np.float32)
        ia = np.empty((10, tc), dtype=np.int32)
        vals = np.empty((12, tc + 1), dtype=np.float32)
        xr = np.empty((12, tc), dtype=np.float32)
        for t in range(chunk * n_tiles // chunks, (chunk + 1) * n_tiles // chunks):
            y0 = (t // n_tx) * tile_rows
            x0 = (t % n_tx) * tile_cols
            _tile(raw, lut_a, lut_p, lut_h, dv, dht, tent, gtaps, phases, scale_r, scale_d, use_a, use_p, use_h, upto,
                  y0, x0, min(y0 + tile_rows, h), min(x0 + tile_cols, w), out, zm, grow, habs, gh, xb, qd, rows,
                  ia, vals, xr)


def set_threads(threads: int) -> None:
    """Numba's share of the job's threads (at most the pool it started with)."""
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def tables(luts: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three tables as contiguous float32 arrays (A, H flat; P as rows of (alpha, beta))."""
    arrays = [np.ascontiguousarray(np.asarray(luts[s].cpu() if hasattr(luts[s], "cpu") else luts[s],
                                              dtype=np.float32)) for s in ("A", "P", "H")]
    return arrays[0].reshape(-1), arrays[1].reshape(-1, 2), arrays[2].reshape(-1)


def fused_demosaic(raw, luts, cfg, use=("A", "P", "H"), tile=(TILE_ROWS, TILE_COLS), upto: int = 3,
                   out: np.ndarray | None = None) -> np.ndarray:
    """raw (H, W) float32 mosaic (numpy or CPU torch) -> (3, 4, H, W) float32 numpy channels, same arithmetic as
    `method.lut_demosaic(raw, luts, cfg, use)`. `upto` < 3 stops early, for the profile only (1: the horizontal
    passes; 2: + the vertical pass, and the detail levels when H is used; the output is then left unwritten).
    `out`: a (3, 4, H, W) float32 C-contiguous array to write into (a camera pipeline reuses its output buffers; a
    fresh array costs the page faults of 48 bytes per pixel on first touch)."""
    raw = np.ascontiguousarray(raw.numpy() if hasattr(raw, "numpy") else raw, dtype=np.float32)
    if raw.ndim != 2 or min(raw.shape) < 3:
        raise ValueError(f"fused_demosaic needs an (H, W) mosaic with H, W >= 3, got shape {raw.shape}")
    h, w = raw.shape
    lut_a, lut_p, lut_h = luts if isinstance(luts, tuple) else tables(luts)
    if out is None:
        out = np.empty((3, 4, h, w), dtype=np.float32)
    elif out.shape != (3, 4, h, w) or out.dtype != np.float32 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float32 array of shape {(3, 4, h, w)}")
    _fused(raw, lut_a, lut_p, lut_h, densities(h), densities(w).T.copy(), TENT, GUIDE, PHASES,
           np.float32(cfg.residual_range), np.float32(cfg.detail_range), "A" in use, "P" in use, "H" in use,
           int(upto), int(tile[0]), int(tile[1]), 4 * numba.get_num_threads(), out.reshape(12, h, w))
    return out

"""Issue #63 pilot (seed 900, outside every configured and robustness seed set): which step size makes the sphere d-grid
runs and the lc image runs end fitted (at the common target) and stable (S <= 2/eta), and where FC starts to memorise.

    python -m neurips26.papers.sparse_eos.pilots.pilot_issue63 [data/raw folder]

Prints one line per run: cell, eta, stop, counts (fitted and stable), S / (2/eta), gap, bound, eff_dim."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.config import compose
from neurips26.papers.sparse_eos import data
from neurips26.papers.sparse_eos.experiments import _sphere_data, fit_row
from neurips26.papers.sparse_eos.models import windows_1d, windows_2d

SEED = 900


def line(label, row, t0):
    print(
        f"{label} eta={row['eta']}: stop {row['stop']} steps {row['steps']} counts {row['counts']} "
        f"S/(2/eta) {row['sharpness'] / row['threshold']:.2f} train {row['train_mse']:.3f} gap {row['gap']:.3f} "
        f"bound {row['bound']:.3f} vacuous {row['vacuous']} k {row['eff_dim']:.1f} ({time.time() - t0:.1f} s)",
        flush=True,
    )


def sphere(cfg, etas):
    s = cfg.sphere
    for eta in etas:
        for arch, dims in (("fc", s.dims), ("lc", s.lc_dims)):
            for d in dims:
                t0 = time.time()
                x, y, clean = _sphere_data(s, SEED, d)
                index = np.arange(d)[None] if arch == "fc" else windows_1d(d, s.r)
                row = fit_row(arch, index, s.widths[arch], x, y, clean, s.n_train, eta, 0.0, cfg, SEED, float(s.noise))
                line(f"sphere {arch} d={d}", row, t0)


def images(cfg, raw: Path, etas, widths):
    im = cfg.images
    folders = {
        "skimage": data.checked_dir(raw / "dofp_lut_skimage/provenance.json", "dofp_lut_skimage"),
        "fashion": data.checked_dir(raw / "fashion_mnist/provenance.json", "fashion_mnist"),
    }
    for source, imgs in data.image_pool(cfg, SEED, folders).items():
        for kind in ("natural", "gaussian"):
            x, clean = data.image_inputs(data.variant(imgs, kind, data.stream(SEED, "variant", source, kind)))
            y = clean + im.noise * data.stream(SEED, "noise", source).standard_normal(len(x))
            for eta in etas:
                for width in widths:
                    t0 = time.time()
                    index = windows_2d(im.side, im.nets.lc.r, im.nets.lc.stride)
                    row = fit_row("lc", index, width, x, y, clean, im.n_train, eta, 0.0, cfg, SEED, float(im.noise))
                    line(f"images {source} {kind} lc width {width}", row, t0)


if __name__ == "__main__":
    raw = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("data/raw")
    cfg = compose("sparse_eos", [])
    part = sys.argv[2] if len(sys.argv) > 2 else "all"
    if part in ("all", "sphere"):
        sphere(cfg, [0.5, 0.25, 0.125])
    if part in ("all", "images"):
        images(cfg, raw, [0.5, 0.25], [4, 16])

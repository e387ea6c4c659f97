"""The geometry experiment (numpy only, so its job never imports torch): participation ratio and PCA spectrum of patch
collections (natural images, their pixel-permuted copies, Gaussian images, and ramp images as the rank-2 control);
activation coverage by random half-spaces (with the sphere and its coordinate patches as the reference pair)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from neurips26.papers.sparse_eos import data, measures


def run_geometry(cfg, seed: int, folders: dict) -> pd.DataFrame:
    """Long format: measure in {pr, spectrum, coverage}; source: an image source x variant, synthetic ramp, or sphere."""
    geo, im, rows = cfg.geometry, cfg.images, []
    pool = data.image_pool(cfg, seed, folders)
    collections = {}
    for source, images in pool.items():
        for kind in im.variants:
            imgs = data.variant(images, kind, data.stream(seed, "variant", source, kind))
            collections[(source, kind)] = imgs
    for (source, kind), imgs in collections.items():
        rng = data.stream(seed, "geometry", source, kind)
        for r in geo.rs:
            p = data.sample_patches(imgs, im.side, r, geo.patches, rng)
            pr = measures.participation_ratio(p)
            rows.append({"seed": seed, "measure": "pr", "source": source, "variant": kind, "r": r, "dim": r * r,
                         "x": float("nan"), "value": pr})
            if r == geo.spectrum_r:
                rows += [{"seed": seed, "measure": "spectrum", "source": source, "variant": kind, "r": r,
                          "dim": r * r, "x": i + 1, "value": lam} for i, lam in enumerate(measures.pca_spectrum(p))]
        p = data.sample_patches(imgs, im.side, geo.coverage_r, geo.patches, rng)
        p = p - p.mean(axis=0)
        curve = measures.coverage_curve(p, np.asarray(geo.fractions, float), geo.directions, rng)
        rows += [{"seed": seed, "measure": "coverage", "source": source, "variant": kind, "r": geo.coverage_r,
                  "dim": geo.coverage_r**2, "x": q, "value": c} for q, c in zip(geo.fractions, curve)]
    # positive control of claim 5: ramp images a + b * row (rank-2 patches by construction: PR <= 2 for every r)
    rng = data.stream(seed, "geometry", "ramp")
    ramps = data.ramp_images(rng, len(next(iter(pool.values()))), im.side)
    for r in geo.rs:
        pr = measures.participation_ratio(data.sample_patches(ramps, im.side, r, geo.patches, rng))
        rows.append({"seed": seed, "measure": "pr", "source": "synthetic", "variant": "ramp", "r": r, "dim": r * r,
                     "x": float("nan"), "value": pr})
    # the sphere: full inputs (what fc sees) vs their r-coordinate patches (what lc sees)
    rng = data.stream(seed, "geometry", "sphere")
    x = data.sphere(rng, geo.patches, geo.sphere_d)
    for label, pts in (("full", x), ("patch", x[:, :geo.sphere_r])):
        curve = measures.coverage_curve(pts, np.asarray(geo.fractions, float), geo.directions, rng)
        rows += [{"seed": seed, "measure": "coverage", "source": "sphere", "variant": label, "r": pts.shape[1],
                  "dim": pts.shape[1], "x": q, "value": c} for q, c in zip(geo.fractions, curve)]
    return pd.DataFrame(rows)

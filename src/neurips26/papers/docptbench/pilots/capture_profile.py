"""docptbench pilot (run by hand, not by the pipeline): choose the geometric capture profile on a seed OUTSIDE the
configured seeds. For each candidate profile, the primary parser (RapidOCR) reads one page of every kind under
original / photographed / oracle-unwarped; the oracle's recovered fraction and the photographed drop are printed.
Decision rule (fixed before running): among the candidates whose oracle recovers >= 0.5 of the drop, take the one
with the largest photographed drop. The real unwarper is not looked at here.

    flock /tmp/neurips26-heavy.lock python src/neurips26/papers/docptbench/pilots/capture_profile.py --seed 11
"""

from __future__ import annotations

import argparse

import numpy as np
from omegaconf import OmegaConf

from neurips26.papers.docptbench import camera, evaluate, experiments, layout, parsers, unwarp

PHOTOMETRIC = ("curl", "fold_shading", "light_gradient", "shadow", "blur_sigma", "noise_sigma", "jpeg_drop")
CANDIDATES = {
    "A_geom1.0_photo0.25": {**{k: 0.25 for k in PHOTOMETRIC}},
    "B_geom1.5_photo0.25": {"corner_jitter": 1.5, "rotation_deg": 1.5, **{k: 0.25 for k in PHOTOMETRIC}},
    "C_geom1.5_photo0.1": {"corner_jitter": 1.5, "rotation_deg": 1.5, **{k: 0.1 for k in PHOTOMETRIC}},
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--kinds", nargs="+", default=["en", "es", "rman"])
    ap.add_argument("--parser", default="rapidocr")
    args = ap.parse_args()
    base = OmegaConf.load("config/docptbench/config.yaml")
    base.pages = {"en": 1, "es": 1, "rman": 1}
    for name, scale in CANDIDATES.items():
        acc = {"original": [], "photographed": [], "oracle_unwarped": []}
        for kind in args.kinds:
            page = experiments.load_pages(kind, args.seed, base)[0]
            rng = np.random.default_rng([args.seed, experiments.KINDS[kind], 0, 1000])
            params = camera.draw_params(3, page.image.shape, rng, float(base.camera.frame_scale), scale)
            photo = camera.photograph(page.image, params)
            images = {"original": page.image, "photographed": photo,
                      "oracle_unwarped": unwarp.oracle_unwarp(photo, params)}
            for condition, image in images.items():
                blocks = layout.layout(parsers.parse_segments(args.parser, image))
                acc[condition].append(1 - evaluate.score_page(page, blocks)["overall_edit"])
        mean = {k: float(np.mean(v)) for k, v in acc.items()}
        drop = mean["original"] - mean["photographed"]
        recovered = (mean["oracle_unwarped"] - mean["photographed"]) / drop if drop else float("nan")
        print(f"{name}: acc {mean}  photographed_relative_drop {drop / mean['original']:.3f}  "
              f"oracle_recovered_fraction {recovered:.3f}", flush=True)


if __name__ == "__main__":
    main()

"""Is the negative control's label-permutation null exchangeable with how its labels are drawn? (JOURNAL: the fix)

    python src/neurips26/papers/cytometry_encoder/pilots/null_diagnostic.py RESULTS_DIR [--draws 300]

Reads RESULTS_DIR/runs/embeddings.npz (the first seed's frozen sample embeddings, written by the removal job) and takes
the negative-control samples. The universe draws their labels balanced within each study (20 + 20 in each of 3). Prints
(1) how well the embedding tells the studies apart, (2) the observed labels' CV AUROC and its percentile in an
unrestricted and in a within-study permutation null, (3) for `--draws` fresh label vectors drawn the way the universe
draws them, how often each null's central 95 % rejects them (nominal: 5 %, about 2.5 % on each side).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from neurips26.papers.cytometry_encoder import probe


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("results", type=Path)
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    d = np.load(args.results / "runs/embeddings.npz", allow_pickle=False)
    keep = d["task"] == "negative_control"
    z, y, study = d["sample_z"][keep], d["label"][keep].astype(int), d["study"][keep]
    counts = {s: (int((y[study == s] == 0).sum()), int((y[study == s] == 1).sum())) for s in np.unique(study)}
    print("labels (0, 1) per study:", counts)
    first = (study == np.unique(study)[0]).astype(int)
    print(f"CV AUROC of study 1 vs the rest from the embedding: {probe.cv_auroc(z, first, 5, 1.0, 0):.3f}")
    rng = np.random.default_rng(args.seed)

    def design_draw() -> np.ndarray:  # a label vector drawn as the universe draws it: balanced within each study
        out = np.empty(len(y), int)
        for s in np.unique(study):
            members = np.flatnonzero(study == s)
            out[members] = rng.permutation(np.arange(len(members)) % 2)
        return out

    nulls = {"unrestricted": probe.null_permutations(len(y), args.draws, 1),
             "within-study": probe.null_permutations(len(y), args.draws, 1, strata=study)}
    observed = probe.cv_auroc(z, y, 5, 1.0, 0)
    draws = np.array([probe.cv_auroc(z, design_draw(), 5, 1.0, 0) for _ in range(args.draws)])
    print(f"observed labels (first seed's embedding): CV AUROC {observed:.3f}; {args.draws} design draws: mean "
          f"{draws.mean():.3f}")
    for name, perms in nulls.items():
        null = probe.permutation_null(z, y, 5, 1.0, 0, perms)
        lo, hi = np.quantile(null, [0.025, 0.975])
        percentile = np.array([(null < x).mean() for x in draws])
        print(f"{name:12s} null: mean {null.mean():.3f}, central 95 % [{lo:.3f}, {hi:.3f}]; observed at percentile "
              f"{(null < observed).mean():.3f}; design draws below it {(draws < lo).mean():.3f}, above "
              f"{(draws > hi).mean():.3f}, mean percentile {percentile.mean():.3f} (exchangeable: ~0.5)")


if __name__ == "__main__":
    main()

"""Construction check of the carry task (JOURNAL.md, issue #60 item 5), data only, no model:

    python src/neurips26/papers/rldp/pilots/carry_task.py 901

A ridge on the prompt's character counts (the surface-feature control's probe, trained on the run's probe-set size)
and prompt length, each as a reader of the level on held-out problems; and the two routes' token counts of a correct
model (think / no-think cost ratio).
"""

from __future__ import annotations

import json
import sys

import numpy as np
from scipy.stats import spearmanr

from neurips26.common.pipeline.config import compose
from neurips26.papers.rldp import baselines
from neurips26.papers.rldp import data as D


def main(argv: list[str]) -> None:
    seed = int(argv[0])
    cfg = compose("rldp", argv[1:])
    rng = np.random.default_rng(seed)
    train, test = D.sample(rng, cfg.eval.n_probe, cfg.task), D.sample(rng, cfg.eval.n_test, cfg.task)
    probe = baselines.RidgeProbe(train.char_counts[:, None, :], train.steps.astype(float), rng=rng)
    think = np.mean([len(D.completion(t, True, cfg.task)) for t in test.terms])
    plain = np.mean([len(D.completion(t, False, cfg.task)) for t in test.terms])
    print(
        json.dumps(
            {
                "surface_spearman": float(spearmanr(probe(test.char_counts[:, None, :]), test.steps).statistic),
                "length_spearman": float(spearmanr(test.prompt_chars, test.steps).statistic),
                "think_tokens": think,
                "nothink_tokens": plain,
                "cost_ratio": think / plain,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])

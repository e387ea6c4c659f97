"""Pilot 6 (issue #65): the epoch budget of the trainable-planting decoder, on pilot seeds outside every configured
seed set. The rule is in ../JOURNAL.md (2026-12-03, issue #65), written before this ran.

For each pilot seed (its own documents, split and MiniLM states, made by the pipeline's prepare and cache rules), PLANT
and LAAT (restart 0's stream, as in a main run) train `--epochs` epochs; after each epoch the dev macro-F1 at the
method's own dev-tuned threshold is recorded. Prints one JSON object: the per-epoch curves, their means over seeds,
each method's convergence epoch and the budget.

    PYTHONPATH=src python src/neurips26/papers/plant/pilots/pilot6_budget.py --seeds 900 901 --epochs 30
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from omegaconf import OmegaConf

from neurips26.common.pipeline.config import compose
from neurips26.papers.plant import experiments, method, metrics, stages

TOLERANCE = 0.5  # macro-F1 points: converged at the first epoch within this of the best mean over the pilot's epochs


def curves(seed: int, epochs: int) -> dict:
    cfg = compose("plant", [])
    cfg = OmegaConf.merge(cfg, {"decoder": {"max_epochs": epochs, "stopping": "fixed"}})
    corpus = stages._read_dataset(f"results/plant/data/seed{seed}/dataset.json")
    states = stages._read_states(f"results/plant/states/seed{seed}/minilm.npz")
    rng = np.random.default_rng([seed, 14])
    tr, dv, te = corpus.index("train"), corpus.index("dev"), corpus.index("test")
    tr = np.sort(rng.permutation(tr))  # the main run's draw at fraction 1 (all training documents)
    planted, _, vocab_of, factors = experiments.tables_for(states, corpus, tr, cfg, rng, {"l2r"})
    data = experiments._tensors(states, corpus, vocab_of)
    grid = np.asarray(cfg.thresholds, float)
    out = {}
    for variant in experiments.MAIN:
        history, started = [], time.perf_counter()

        def record(model, d, history=history):
            probs = method.predict(model, d, dv)
            pred = (probs >= metrics.best_threshold(probs, corpus.Y[dv], grid)).astype(np.float32)
            history.append(100 * metrics.macro_f1(pred, corpus.Y[dv]))

        row, model = experiments.fit(
            variant, data, planted, corpus, tr, dv, te, cfg, [seed, 15, 0, 1000], factors, on_epoch=record
        )
        out[variant[0]] = {
            "dev_macro_f1": history,
            "seconds": time.perf_counter() - started,
            "test_macro_f1_last": 100 * row["macro_f1"],
            "mix": [row.get("mix_learned"), row.get("mix_planted")],
        }
    return out


def converged(mean: np.ndarray) -> int:
    """First epoch (1-based) whose mean dev macro-F1 is within TOLERANCE of the best mean."""
    return int(np.flatnonzero(mean >= mean.max() - TOLERANCE)[0]) + 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", required=True)
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    per_seed = {s: curves(s, args.epochs) for s in args.seeds}
    report = {"seeds": args.seeds, "epochs": args.epochs, "per_seed": per_seed, "converged": {}}
    for name in ("plant", "laat"):
        mean = np.mean([per_seed[s][name]["dev_macro_f1"] for s in args.seeds], 0)
        report["converged"][name] = converged(mean)
        report[f"mean_{name}"] = [round(float(v), 3) for v in mean]
    report["budget"] = max(report["converged"].values())
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

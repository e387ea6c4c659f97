"""The experiments, one seed at a time: the layer-peeled model under every sampler and ratio, the long-tailed image
runs (every method on one dataset x ratio x seed), and the mixed-label histograms of the samplers."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from neurips26.papers.mixup_minority import data, lpm
from neurips26.papers.mixup_minority.baselines import METHODS
from neurips26.papers.mixup_minority.method import mean_pairwise_cosine
from neurips26.papers.mixup_minority.samplers import SAMPLERS, PairSampler, label_pairs, unordered_probabilities

GEOMETRY_METHODS = ("mixup_instance", "bmls", "bmls_ms")  # shown in figures/feature_geometry.png


def lt_datasets(cfg):
    """The long-tailed datasets of the run's data mode (config lt.datasets.<data>)."""
    return cfg.lt.datasets[str(cfg.data)]


def etf_value(classes: int) -> float:
    return -1.0 / (classes - 1)


def run_lpm(cfg, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per ratio x method with the collapse measures, the Gram matrices at the largest ratio)."""
    c = cfg.lpm
    k = int(c.classes)
    rows, grams = [], []
    for ratio in c.ratios:
        counts = lpm.step_counts(k, float(ratio))
        for name in c.methods:
            out = lpm.solve(lpm.LPM_METHODS[name], counts, c, seed)
            print(f"lpm ratio {ratio} {name}: minority cos {out['minority_w_cos']:.3f} ({out['steps']} steps)",
                  file=sys.stderr)
            rows.append({"seed": seed, "ratio": float(ratio), "method": name, "etf_value": etf_value(k),
                         **{key: out[key] for key in ("minority_w_cos", "minority_mean_cos", "majority_w_cos",
                                                      "w_norm_ratio", "steps", "loss")}})
            if float(ratio) == max(map(float, c.ratios)) and name in GEOMETRY_METHODS:
                for kind in ("w_gram", "mean_gram"):
                    gram = out[kind]
                    grams += [{"seed": seed, "ratio": float(ratio), "method": name, "kind": kind[:-5], "i": i,
                               "j": j, "cos": float(gram[i, j])} for i in range(k) for j in range(k)]
    return pd.DataFrame(rows), pd.DataFrame(grams)


def prepare_lt(task: data.Task, ratio: float, n_max: int, test_per_class: int, seed: int):
    """Per seed: a random assignment of classes to count ranks (rank 0 the head), the long-tailed training indices
    and a balanced test subset. Labels are returned as ranks."""
    rng = np.random.default_rng([seed, 17])
    order = rng.permutation(task.classes)  # order[r] = the original class of rank r
    rank = np.argsort(order)
    y_pool, y_test = rank[task.y_pool], rank[task.y_test]
    counts = data.long_tailed_counts(task.classes, n_max, ratio)
    train = data.long_tailed_indices(y_pool, counts, rng)
    test = data.balanced_test(y_test, test_per_class, rng)
    return (task.x_pool[train], y_pool[train], task.x_test[test], y_test[test], counts, order)


def run_lt(cfg, task: data.Task, dataset: str, ratio: float, seed: int, device: str) -> pd.DataFrame:
    """Every method of cfg.lt.methods trained on the same long-tailed set: per-group test accuracy; the collapse
    measures on the training features at the end of training (neural collapse is a training-set phenomenon); the final
    training loss (the convergence rule's)."""
    import torch

    from neurips26.papers.mixup_minority.training import evaluate, final_loss, train

    spec = lt_datasets(cfg)[dataset]
    x, y, xt, yt, counts, order = prepare_lt(task, ratio, int(spec.n_max), int(spec.test_per_class), seed)
    methods = cfg.lt.methods if float(ratio) == float(cfg.lt.full_ratio) else cfg.lt.methods_other_ratios
    rows = []
    for name in methods:
        torch.manual_seed(seed)
        model = train(METHODS[name], x, y, task.classes, cfg, seed, device)
        row = {"dataset": dataset, "ratio": float(ratio), "seed": seed, "method": name, "n_train": int(counts.sum()),
               "n_test": len(yt), "steps": int(cfg.train.steps), "train_loss": final_loss(model),
               **lt_measures(evaluate(model, xt, yt, task.classes), evaluate(model, x, y, task.classes),
                             task.classes, METHODS[name].head),
               "tail_classes": " ".join(str(int(order[r])) for r in data.class_groups(task.classes)["tail"])}
        print(f"{dataset} ratio {ratio} seed {seed} {name}: acc {row['acc']:.3f} tail {row['acc_tail']:.3f} "
              f"tail w cos {row['tail_w_cos']:.3f} tail mean cos {row['tail_mean_cos']:.3f} nc1 {row['nc1']:.3f} "
              f"loss {row['train_loss']:.3f}", file=sys.stderr)
        rows.append(row)
    return pd.DataFrame(rows)


def lt_measures(test: dict, train: dict, classes: int, head: str) -> dict:
    """Test accuracies (balanced, per group) and the training-feature collapse measures of the tail (minority)
    classes: classifier-row cosine (learned heads only: a fixed ETF head's rows are fixed), centred class-mean cosine,
    NC1."""
    groups = data.class_groups(classes)
    acc, tail = test["per_class_acc"], groups["tail"]
    return {"acc": float(acc.mean()), **{f"acc_{g}": float(acc[idx].mean()) for g, idx in groups.items()},
            "train_acc": float(train["per_class_acc"].mean()),
            "tail_w_cos": mean_pairwise_cosine(train["w"][tail]) if head == "linear" else float("nan"),
            "tail_mean_cos": mean_pairwise_cosine(train["class_means"][tail]), "nc1": train["nc1"]}


def mixed_label_hist(cfg) -> pd.DataFrame:
    """For each sampler, on the long-tailed counts of cfg.hist (n_max, ratio, K): the closed-form probability of every
    unordered mixed label {a, b} and its frequency in cfg.hist.draws draws of the sampler."""
    h = cfg.hist
    k = int(h.classes)
    counts = data.long_tailed_counts(k, int(h.n_max), float(h.ratio))
    labels = np.repeat(np.arange(k), counts)
    a, b = label_pairs(k)
    rows = []
    for s, kind in enumerate(SAMPLERS):
        rng = np.random.default_rng([int(h.seed), s])
        i, j = PairSampler(kind, labels, k).draw(int(h.draws), rng)
        ya, yb = np.minimum(labels[i], labels[j]), np.maximum(labels[i], labels[j])
        observed = np.zeros((k, k))
        np.add.at(observed, (ya, yb), 1)
        closed = unordered_probabilities(kind, counts)
        rows += [{"sampler": kind, "ratio": float(h.ratio), "a": int(x), "b": int(z), "pure": bool(x == z),
                  "p_closed": float(p), "p_empirical": float(observed[x, z] / int(h.draws))}
                 for x, z, p in zip(a, b, closed)]
    return pd.DataFrame(rows)

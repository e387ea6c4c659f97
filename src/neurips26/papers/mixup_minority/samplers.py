"""Mixup pair samplers: which two training examples are mixed, and so how often each mixed label {a, b} occurs.

Every sampler draws ordered pairs of instance indices (i, j); the mixed label is the class pair (y_i, y_j). The class-pair
probabilities have closed forms (counts n_k, N = sum n_k), which the tests check against draws:

    instance        (instance x instance, plain Mixup)       P(a, b) = n_a n_b / N^2
    class_balanced  (class-balanced x instance)              P(a, b) = (1 / K) (n_b / N)
    class_class     (class x class: Label-Occurrence-Balanced Mixup)   P(a, b) = 1 / K^2
    bmls            (Balanced Mixed Label Sampler)           the unordered label {a, b} uniform over the K (K + 1) / 2
                    labels (K pure + K (K - 1) / 2 mixed), a random order, then one instance of each class:
                    P(a, b) = 1 / (K (K + 1)) for a != b, 2 / (K (K + 1)) for a = b.

Within a class, instances are drawn uniformly (with replacement). Non-mixup training draws single instances with
`single_probabilities` (instance: n_k / N, class-balanced resampling: 1 / K).
"""

from __future__ import annotations

import numpy as np

SAMPLERS = ("instance", "class_balanced", "class_class", "bmls")


def pair_probabilities(kind: str, counts) -> np.ndarray:
    """K x K matrix of P(first class = a, second class = b) under the sampler (closed form)."""
    n = np.asarray(counts, dtype=np.float64)
    k = len(n)
    p = n / n.sum()
    if kind == "instance":
        return np.outer(p, p)
    if kind == "class_balanced":
        return np.outer(np.full(k, 1.0 / k), p)
    if kind == "class_class":
        return np.full((k, k), 1.0 / k**2)
    if kind == "bmls":
        return (np.ones((k, k)) + np.eye(k)) / (k * (k + 1))
    raise ValueError(f"unknown sampler {kind!r}; known: {', '.join(SAMPLERS)}")


def unordered_probabilities(kind: str, counts) -> np.ndarray:
    """Probabilities of the K (K + 1) / 2 unordered mixed labels {a, b}, a <= b, in `label_pairs` order."""
    p = pair_probabilities(kind, counts)
    a, b = label_pairs(len(p))
    return np.where(a == b, p[a, b], p[a, b] + p[b, a])


def label_pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) with a <= b for every unordered label, pure classes first (a = b = 0..K-1), then the pairs a < b."""
    pure = np.arange(k)
    a, b = np.triu_indices(k, 1)
    return np.concatenate([pure, a]), np.concatenate([pure, b])


def single_probabilities(kind: str, counts) -> np.ndarray:
    n = np.asarray(counts, dtype=np.float64)
    if kind == "instance":
        return n / n.sum()
    if kind == "class_balanced":
        return np.full(len(n), 1.0 / len(n))
    raise ValueError(f"unknown single-instance sampler {kind!r}; known: instance, class_balanced")


class PairSampler:
    """Draws ordered pairs of instance indices from labels (0..K-1) by one of SAMPLERS."""

    def __init__(self, kind: str, labels: np.ndarray, classes: int):
        if kind not in SAMPLERS:
            raise ValueError(f"unknown sampler {kind!r}; known: {', '.join(SAMPLERS)}")
        self.kind, self.classes = kind, classes
        self.labels = np.asarray(labels)
        self.members = [np.flatnonzero(self.labels == c) for c in range(classes)]
        if any(len(m) == 0 for m in self.members):
            raise ValueError("every class needs at least one training example")

    def instances_of(self, classes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        sizes = np.array([len(m) for m in self.members])
        offsets = (rng.random(len(classes)) * sizes[classes]).astype(np.int64)
        return np.array([self.members[c][o] for c, o in zip(classes, offsets)], dtype=np.int64)

    def classes_pairs(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray] | None:
        """Class pairs for the class-level samplers; None for the instance-level first draw."""
        k = self.classes
        if self.kind == "class_class":
            return rng.integers(0, k, size), rng.integers(0, k, size)
        if self.kind == "bmls":
            a, b = label_pairs(k)
            pick = rng.integers(0, len(a), size)
            swap = rng.random(size) < 0.5
            first, second = a[pick], b[pick]
            return np.where(swap, second, first), np.where(swap, first, second)
        return None

    def draw(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        n = len(self.labels)
        if self.kind == "instance":
            return rng.integers(0, n, size), rng.integers(0, n, size)
        if self.kind == "class_balanced":
            return self.instances_of(rng.integers(0, self.classes, size), rng), rng.integers(0, n, size)
        a, b = self.classes_pairs(size, rng)
        return self.instances_of(a, rng), self.instances_of(b, rng)


def draw_single(sampler: PairSampler, kind: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """Instance indices for non-mixup training: uniform over instances, or class-balanced resampling (a class
    uniformly, then an instance of it); `sampler` only supplies the class members."""
    if kind == "instance":
        return rng.integers(0, len(sampler.labels), size)
    if kind == "class_balanced":
        return sampler.instances_of(rng.integers(0, sampler.classes, size), rng)
    raise ValueError(f"unknown single-instance sampler {kind!r}; known: instance, class_balanced")

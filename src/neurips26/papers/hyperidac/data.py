"""Fashion-MNIST rendered into four visual domains, and the frozen extractor's feature cache.

Splits of the 60,000 Fashion-MNIST training images (fixed, by index): [0, 50000) is the candidate pool the DCI
allocation draws from; [50000, 60000) is the extractor's own split (the CNN is trained there, and the zero-shot class
prototypes, the stand-in for CLIP's text embeddings, are mean features of clean images of that split). Test cells come
from the 10,000 t10k images. No image is in two of these sets.

Every random choice of the cache (which extractor images, their domains and renderings, the extractor's initialisation
and batch order, the prototype images, the pool candidates and test images and their domains) follows the run's seed
(issue #51): one cache per seed, its draws from the stream "features", the extractor's torch seed from "extractor".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import ndimage

from neurips26.common.data.fashion_mnist import load_fashion
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import derived_seed
from neurips26.common.pipeline.seed_streams import rng as seed_stream

DOMAINS = ("clean", "inverted", "noise_blur", "affine")
POOL_END = 50_000


def render(images: np.ndarray, domain: str, rng: np.random.Generator, cfg) -> np.ndarray:
    """uint8 [n, 28, 28] -> float32 in [0, 1], rendered in `domain` (random parts drawn from rng)."""
    x = images.astype(np.float32) / 255.0
    if domain == "clean":
        return x
    if domain == "inverted":
        return 1.0 - x
    if domain == "noise_blur":
        blurred = ndimage.gaussian_filter(x, sigma=(0, cfg.blur_sigma, cfg.blur_sigma))
        return np.clip(blurred + rng.normal(0, cfg.noise_std, x.shape).astype(np.float32), 0, 1)
    if domain == "affine":
        out = np.empty_like(x)
        angles = rng.uniform(-cfg.max_rotation, cfg.max_rotation, len(x))
        shifts = rng.uniform(-cfg.max_shift, cfg.max_shift, (len(x), 2))
        for i in range(len(x)):
            rotated = ndimage.rotate(x[i], angles[i], reshape=False, order=1, mode="constant")
            out[i] = ndimage.shift(rotated, shifts[i], order=1, mode="constant")
        return np.clip(out, 0, 1)
    raise UserError(f"unknown domain {domain!r}; known: {', '.join(DOMAINS)}")


def _extractor(width: int, feature_dim: int, n_classes: int):
    import torch.nn as nn

    body = nn.Sequential(
        nn.Conv2d(1, width, 5, stride=2, padding=2), nn.ReLU(),
        nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.ReLU(),
        nn.Flatten(), nn.Linear(2 * width * 7 * 7, feature_dim), nn.ReLU())
    return body, nn.Linear(feature_dim, n_classes)


def train_extractor(x: np.ndarray, y: np.ndarray, cfg, seed: int):
    """The frozen extractor: a 2-conv CNN trained with labels on the extractor split (mostly clean images, a
    cfg.extractor.shifted_fraction of them in the other domains), then frozen."""
    import torch
    import torch.nn.functional as F

    from neurips26.common.models import optim

    torch.manual_seed(seed)
    body, head = _extractor(cfg.extractor.width, cfg.extractor.feature_dim, 10)
    opt = optim.Adam([*body.parameters(), *head.parameters()], lr=cfg.extractor.lr)
    xt, yt = torch.from_numpy(x[:, None]), torch.from_numpy(y.astype(np.int64))
    gen = torch.Generator().manual_seed(seed)
    for _ in range(cfg.extractor.epochs):
        for idx in torch.randperm(len(xt), generator=gen).split(cfg.extractor.batch):
            loss = F.cross_entropy(head(body(xt[idx])), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    body.eval()
    return body


def embed(body, x: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        return np.concatenate([body(torch.from_numpy(x[i:i + 1024, None])).numpy() for i in range(0, len(x), 1024)])


def _per_class(labels: np.ndarray, count: int, rng: np.random.Generator, where: str) -> list[np.ndarray]:
    chosen = []
    for c in range(10):
        idx = np.flatnonzero(labels == c)
        if len(idx) < count:
            raise UserError(f"{where}: class {c} has {len(idx)} images, {count} needed (lower the scale's sizes)")
        chosen.append(rng.permutation(idx)[:count])
    return chosen


def build_features(folder: Path, cfg, seed: int) -> dict[str, np.ndarray]:
    """The feature cache of the run with this seed: pool candidates (pool_per_cell per class x domain cell), balanced
    test cells (test_per_cell), the class prototypes, all as frozen-extractor features."""
    f = cfg.features
    rng = seed_stream(seed, "features")
    train_x, train_y, test_x, test_y = load_fashion(folder)
    domains = list(cfg.domains)
    ext_x, ext_y = train_x[POOL_END:], train_y[POOL_END:]
    ext_idx = rng.permutation(len(ext_x))[:int(cfg.extractor.n_train)]
    # clean, except a `shifted_fraction` of the images, rendered in one of the other domains (uniformly)
    shifted = rng.random(len(ext_idx)) < float(cfg.extractor.shifted_fraction)
    ext_dom = np.where(shifted, rng.integers(1, len(domains), len(ext_idx)), 0)
    ext_imgs = np.empty((len(ext_idx), 28, 28), np.float32)
    for d in set(ext_dom.tolist()):
        ext_imgs[ext_dom == d] = render(ext_x[ext_idx[ext_dom == d]], domains[d], rng, cfg.render)
    body = train_extractor(ext_imgs, ext_y[ext_idx], cfg, derived_seed(seed, "extractor"))

    proto_pool = np.setdiff1d(np.arange(len(ext_x)), ext_idx)
    protos = []
    for idx in _per_class(ext_y[proto_pool], int(f.prototype_images), rng, "prototype images"):
        protos.append(embed(body, render(ext_x[proto_pool[idx]], "clean", rng, cfg.render)).mean(0))

    out = {"prototypes": np.stack(protos).astype(np.float32)}
    for part, (xs, ys, per_cell) in {"pool": (train_x[:POOL_END], train_y[:POOL_END], int(f.pool_per_cell)),
                                     "test": (test_x, test_y, int(f.test_per_cell))}.items():
        feats, labels, doms = [], [], []
        for c, idx in enumerate(_per_class(ys, per_cell * len(domains), rng, f"{part} candidates")):
            for d, block in enumerate(np.split(idx, len(domains))):
                feats.append(embed(body, render(xs[block], domains[d], rng, cfg.render)))
                labels.append(np.full(per_cell, c))
                doms.append(np.full(per_cell, d))
        out[f"{part}_x"] = np.concatenate(feats).astype(np.float32)
        out[f"{part}_y"] = np.concatenate(labels).astype(np.int64)
        out[f"{part}_d"] = np.concatenate(doms).astype(np.int64)
    return out


def load_features(path: Path) -> dict[str, np.ndarray]:
    keys = ("prototypes", "pool_x", "pool_y", "pool_d", "test_x", "test_y", "test_d")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in keys}
    except (OSError, KeyError, ValueError) as error:
        raise UserError(f"{path}: not a complete hyperidac feature cache ({error})") from None
    for part in ("pool", "test"):
        n = len(arrays[f"{part}_x"])
        if len(arrays[f"{part}_y"]) != n or len(arrays[f"{part}_d"]) != n:
            raise UserError(f"{path}: {part} features, labels and domains differ in length")
    return arrays

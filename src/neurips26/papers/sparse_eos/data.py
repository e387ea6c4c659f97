"""Inputs: uniform on the unit sphere S^{d-1}; natural images (scikit-image's bundled photographs, Debian's Fashion-MNIST);
their pixel-permuted copies (every patch becomes a random non-contiguous pixel set) and i.i.d. Gaussian images (the
unstructured controls). Targets are a fixed function of the input plus Gaussian noise of standard deviation sigma."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.errors import UserError

SKIMAGE_DATASET, FASHION_DATASET, CIFAR_DATASET = "dofp_lut_skimage", "fashion_mnist", "cifar10"
PHOTOS = ("astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png")  # natural scenes only
DATASETS = {"skimage": SKIMAGE_DATASET, "fashion": FASHION_DATASET, "cifar10": CIFAR_DATASET}  # image source -> dataset
VARIANTS = ("natural", "permuted", "gaussian")
GREY = np.array([0.2125, 0.7154, 0.0721])  # scikit-image's rgb2gray weights (the photographs are made grey with it)


def image_sources(images, mode: str) -> list[str]:
    """The image sources of a run: `images.sources[mode]` (data: embedded: scikit-image photographs and Debian's
    Fashion-MNIST; data: real: CIFAR-10 from the official archive, md5-checked by the data_prepare rule)."""
    if mode not in images.sources:
        raise UserError(f"sparse_eos: no image sources for data: {mode!r} (images.sources has {list(images.sources)})")
    sources = list(images.sources[mode])
    unknown = [s for s in sources if s not in DATASETS]
    if unknown:
        raise UserError(f"sparse_eos: unknown image source(s) {unknown}; expected some of {sorted(DATASETS)}")
    return list(dict.fromkeys(sources))


def stream(seed: int, *keys) -> np.random.Generator:
    """An independent generator per (seed, purpose) so adding a run never shifts another run's draws."""
    words = [seed] + [abs(hash_key(k)) for k in keys]
    return np.random.default_rng(words)


def hash_key(key) -> int:
    return key if isinstance(key, int) else int.from_bytes(str(key).encode()[:8].ljust(8, b"\0"), "little") % 2**31


def sphere(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def sphere_target(x: np.ndarray) -> np.ndarray:
    """sqrt(d) x_1: unit variance at every d, depends on one coordinate (representable by fc and lc alike)."""
    return np.sqrt(x.shape[1]) * x[:, 0]


def checked_dir(provenance: Path, dataset: str) -> Path:
    provenance = Path(provenance)
    if provenance.name != "provenance.json" or not provenance.is_file():
        raise UserError(f"sparse_eos: expected data/raw/{dataset}/provenance.json, got {provenance}")
    found = json.loads(provenance.read_text()).get("dataset")
    if found != dataset:
        raise UserError(f"{provenance}: expected the provenance of dataset {dataset!r}, got {found!r}")
    from neurips26.common.pipeline.provenance import verified_input

    return verified_input(provenance.parent)  # every recorded file still has its recorded sha256


def skimage_gray(folder: Path) -> list[np.ndarray]:
    import skimage.color
    import skimage.transform

    from neurips26.common.data.images import read_rgb

    out = []
    for name in PHOTOS:
        rgb = read_rgb(Path(folder) / name, SKIMAGE_DATASET)
        out.append(skimage.transform.downscale_local_mean(skimage.color.rgb2gray(rgb), (2, 2)))
    return out


def skimage_crops(photos: list[np.ndarray], rng: np.random.Generator, n: int, side: int) -> np.ndarray:
    """n random side x side crops (photo chosen uniformly), flattened, grey levels in [0, 1]."""
    out = np.empty((n, side * side))
    for i in range(n):
        p = photos[rng.integers(len(photos))]
        top, left = rng.integers(p.shape[0] - side + 1), rng.integers(p.shape[1] - side + 1)
        out[i] = p[top:top + side, left:left + side].ravel()
    return out


def fashion_images(folder: Path, rng: np.random.Generator, n: int, side: int) -> np.ndarray:
    """n random Fashion-MNIST training images, 2x2 mean-pooled to 14 x 14 and centre-cropped to side x side."""
    from neurips26.common.data.fashion_mnist import load_fashion

    images = load_fashion(folder)[0]
    pick = images[rng.choice(len(images), size=n, replace=False)].astype(float) / 255.0
    pooled = pick.reshape(n, 14, 2, 14, 2).mean(axis=(2, 4))
    if side > 14:
        raise UserError(f"sparse_eos: image side {side} exceeds the 14 x 14 pooled Fashion-MNIST images")
    top = (14 - side) // 2
    return pooled[:, top:top + side, top:top + side].reshape(n, -1)


def cifar_images(folder: Path, rng: np.random.Generator, n: int, side: int, pool: int) -> np.ndarray:
    """n random images among the first `pool` CIFAR-10 training images (official archive, read by common.cifar),
    made grey (rgb2gray weights), 2x2 mean-pooled to 16 x 16 and centre-cropped to side x side, values in [0, 1]."""
    from neurips26.common.data.cifar import read_cifar

    if side > 16:
        raise UserError(f"sparse_eos: image side {side} exceeds the 16 x 16 pooled CIFAR-10 images")
    pixels = read_cifar(folder, CIFAR_DATASET, "train", count=pool)[0]
    pick = pixels[rng.choice(pool, size=n, replace=False)].reshape(n, 3, 32, 32).astype(float) / 255.0
    grey = np.tensordot(GREY, pick, axes=(0, 1))
    pooled = grey.reshape(n, 16, 2, 16, 2).mean(axis=(2, 4))
    top = (16 - side) // 2
    return pooled[:, top:top + side, top:top + side].reshape(n, -1)


def block_images(rng: np.random.Generator, n: int, side: int, block: int) -> np.ndarray:
    """n images constant on every aligned block x block square (one N(0, 1) value per block), flattened: every patch of
    a locally connected layer with windows of side `block` at stride `block` is constant (rank 1), while the image has
    (side / block)^2 free values; a pixel permutation mixes the blocks inside every window (the positive control of
    the unstructured-patches claim)."""
    if side % block:
        raise UserError(f"sparse_eos: block images need side {side} divisible by the block side {block}")
    k = side // block
    values = rng.standard_normal((n, k, k))
    return np.repeat(np.repeat(values, block, axis=1), block, axis=2).reshape(n, side * side)


def variant(images: np.ndarray, kind: str, rng: np.random.Generator) -> np.ndarray:
    """natural: as is; permuted: one fixed random pixel permutation for all images (a diagnostic only: on smooth crops
    its windows keep a low participation ratio); gaussian: the unstructured control, i.i.d. Gaussian pixels at the
    natural images' per-pixel mean and standard deviation (windows at PR / r^2 near 1, checked inside the claim)."""
    if kind == "natural":
        return images
    if kind == "permuted":
        return images[:, rng.permutation(images.shape[1])]
    if kind == "gaussian":
        return images.mean(axis=0) + images.std(axis=0) * rng.standard_normal(images.shape)
    raise UserError(f"sparse_eos: unknown image variant {kind!r}; expected one of {VARIANTS}")


def ramp_images(rng: np.random.Generator, n: int, side: int) -> np.ndarray:
    """n images a + b * row (a, b ~ N(0, 1) per image), flattened: every patch lies in span{1, row}, so the patch
    covariance has rank <= 2 (the structured positive control of the participation ratio)."""
    a, b = rng.standard_normal((2, n, 1, 1))
    rows = np.arange(side, dtype=float)[None, :, None] / side
    return np.broadcast_to(a + b * rows, (n, side, side)).reshape(n, side * side)


def image_inputs(images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, target): inputs centred by the pixel-wise mean and scaled by one global factor so max |x| = 1 (the
    theory's R = 1); target = the standardised mean pixel of the raw image (invariant to a pixel permutation)."""
    mean = images.mean(axis=1)
    target = (mean - mean.mean()) / mean.std()
    x = images - images.mean(axis=0)
    return x / np.linalg.norm(x, axis=1).max(), target


def sample_patches(images: np.ndarray, side: int, r: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` random r x r windows of the side x side images (flattened)."""
    grid = images.reshape(len(images), side, side)
    i = rng.integers(len(images), size=count)
    top, left = rng.integers(side - r + 1, size=count), rng.integers(side - r + 1, size=count)
    rows = top[:, None, None] + np.arange(r)[None, :, None]
    cols = left[:, None, None] + np.arange(r)[None, None, :]
    return grid[i[:, None, None], rows, cols].reshape(count, r * r)


def image_pool(cfg, seed: int, folders: dict) -> dict[str, np.ndarray]:
    """source -> the n_train + n_test images of this seed (`folders`: source -> its verified data folder)."""
    im, photos, pool = cfg.images, None, {}
    n = im.n_train + im.n_test
    for source in image_sources(im, cfg.data):
        rng = stream(seed, "images", source)
        if source == "skimage":
            photos = photos or skimage_gray(folders["skimage"])
            pool[source] = skimage_crops(photos, rng, n, im.side)
        elif source == "fashion":
            pool[source] = fashion_images(folders["fashion"], rng, n, im.side)
        else:
            pool[source] = cifar_images(folders["cifar10"], rng, n, im.side, int(im.cifar_pool))
    return pool

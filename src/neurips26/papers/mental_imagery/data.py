"""Puzzle instances for the five families: start state, the canonical solution, every intermediate state, its rendering
(24x24 RGB) and its board cells. Rush Hour boards come from reasoning-gym's bundled rush_18k.txt, jigsaw crops from
scikit-image's bundled photographs (both copied and sha256-checked by the data_prepare rule)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.errors import UserError
from neurips26.papers.mental_imagery.puzzles import CANVAS, make_families, parse_rush, replay

JIGSAW_IMAGES = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "retina.jpg", "hubble_deep_field.jpg",
                 "ihc.png", "color.png", "logo.png", "motorcycle_left.png"]


@dataclass
class Example:
    family: str
    actions: list[int]
    images: np.ndarray  # (T + 1, 24, 24, 3): s_0 .. s_T
    cells: np.ndarray  # (T + 1, n_cells) ints
    start: object


def patches(images: np.ndarray, size: int = 6) -> np.ndarray:
    """(..., 24, 24, 3) -> (..., 16, 108): the 16 visual tokens of a board (6x6 RGB patches, raster order)."""
    k = CANVAS // size
    shaped = images.reshape(*images.shape[:-3], k, size, k, size, 3)
    shaped = np.moveaxis(shaped, -4, -3)
    return shaped.reshape(*images.shape[:-3], k * k, size * size * 3)


def _example(family, start, actions) -> Example:
    ok, states = replay(family, start, actions)
    if not ok:
        raise AssertionError(f"{family.name}: the solver's actions do not solve the puzzle")
    return Example(family.name, list(actions), np.stack([family.render(s) for s in states]).astype(np.float32),
                   np.stack([family.cells(s) for s in states]), start)


def rush_boards(path: Path) -> list[tuple[int, str]]:
    if not path.is_file():
        raise UserError(f"{path} is missing; run the data_prepare rule for rush_hour_18k")
    return parse_rush(path.read_text(), str(path))


def jigsaw_photos(data_dir: Path) -> list[np.ndarray]:
    from neurips26.common.images import read_rgb

    return [read_rgb(data_dir / name, "dofp_lut_skimage") for name in JIGSAW_IMAGES]


def _crop(rng, photo: np.ndarray) -> np.ndarray:
    """A random crop of 2/3 of the photo's shorter side at aspect 2:3, box-downsampled to 16x24."""
    h, w = photo.shape[:2]
    ch = int(min(h, w * 2 / 3) * 2 / 3) // 16 * 16
    cw = ch * 3 // 2
    r, c = rng.integers(0, h - ch + 1), rng.integers(0, w - cw + 1)
    f = ch // 16
    return photo[r:r + ch, c:c + cw].reshape(16, f, 24, f, 3).mean(axis=(1, 3))


def generate(cfg, split_seed: int, n: int, boards: list[tuple[int, str]], photos: list[np.ndarray],
             part: str) -> list[Example]:
    """n instances per family. Rush Hour: boards of the file (and the intermediate boards of their solutions) whose
    shortest solution has 1..max_len moves, lines split into train/test halves by `part`. The other families are
    drawn from the generators with the numpy seed `split_seed`."""
    fams = make_families()
    rng = np.random.default_rng(split_seed)
    max_len = int(cfg.puzzle.max_len)
    out = []
    # Rush Hour: a fixed shuffle of the candidate lines (file order is by difficulty); train takes even, test odd lines
    rh = fams["rush_hour"]
    lines = [b for moves, b in boards if moves <= max_len]  # the file's count is the same move (a slide of any length)
    order = np.random.default_rng(int(cfg.puzzle.rush_split_seed)).permutation(len(lines))
    picked, seen = [], set()
    for idx in order[(0 if part == "train" else 1)::2]:
        sol = rh.solve(lines[idx], max_len)
        if not sol:
            continue
        _, states = replay(rh, lines[idx], sol)
        for k, s in enumerate(states[:-1]):  # every suffix of a shortest solution is a shortest solution
            if s not in seen and len(picked) < n:
                seen.add(s)
                picked.append(_example(rh, s, sol[k:]))
        if len(picked) >= n:
            break
    if len(picked) < n:
        raise UserError(f"only {len(picked)} Rush Hour boards with <= {max_len} moves in the {part} half; lower n")
    out += picked
    sk = fams["sokoban"]
    count = 0
    while count < n:
        start = sk.generate(rng, int(rng.integers(0, int(cfg.puzzle.sokoban_inner_walls) + 1)))
        sol = sk.solve(start, max_len)
        if sol:
            out.append(_example(sk, start, sol))
            count += 1
    jg = fams["jigsaw"]
    count = 0
    while count < n:
        image = _crop(rng, photos[int(rng.integers(len(photos)))])
        perm = tuple(int(x) for x in rng.permutation(6))
        sol = jg.solve((image, perm), max_len)
        if sol:
            out.append(_example(jg, (image, perm), sol))
            count += 1
    rot = fams["rotation"]
    count = 0
    while count < n:
        start = rot.generate(rng, int(cfg.puzzle.cubes), int(rng.integers(1, int(cfg.puzzle.rotation_turns) + 1)))
        sol = rot.solve(start, max_len)
        if sol:
            out.append(_example(rot, start, sol))
            count += 1
    tg = fams["tangram"]
    for _ in range(n):
        start = tg.generate(rng)
        out.append(_example(tg, start, tg.solve(start, max_len)))
    return out

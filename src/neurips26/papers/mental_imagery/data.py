"""Puzzle instances for the five families: start state, the canonical solution, every intermediate state, its rendering
(24x24 RGB) and its board cells. Rush Hour boards come from reasoning-gym's bundled rush_18k.txt, jigsaw crops from
scikit-image's bundled photographs (both copied and sha256-checked by the data_prepare rule)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neurips26.common.pipeline.artifacts import write_npz
from neurips26.common.pipeline.errors import UserError
from neurips26.common.pipeline.seed_streams import rng as seed_rng
from neurips26.papers.mental_imagery.puzzles import CANVAS, Jigsaw, make_families, parse_rush, replay

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
    """(..., 24, 24, 3) -> (..., (24 / size)^2, size * size * 3): the patches of a board in raster order. size 6: the 16
    visual tokens z (108 values each); size 4 (the default input): 36 patches, one per cell of the 6x6 layout grid."""
    k = CANVAS // size
    shaped = images.reshape(*images.shape[:-3], k, size, k, size, 3)
    shaped = np.moveaxis(shaped, -4, -3)
    return shaped.reshape(*images.shape[:-3], k * k, size * size * 3)


# Symbolic input (perfect perception): a board's full state as 36 symbol ids on the renderers' 6x6 layout grid.
SYM_BLANK = 0
SYM_OFFSETS = {"rush_hour": 1, "sokoban": 19, "jigsaw": 26, "rotation": 32, "tangram": 40}
N_SYMBOLS = 52  # rush_hour 18 cell classes, sokoban 7, jigsaw 6 tiles, rotation 8 column codes, tangram 5 + 7 pieces


def symbols(name: str, state) -> np.ndarray:
    """The symbolic view of a state: (36,) ints (global symbol ids, 0 = blank) in raster order of the 6x6 layout grid,
    holding what the image shows and nothing else. Rush Hour and Sokoban: each cell's class. Jigsaw: the tile at each
    of the six positions (rows 0-1, columns 0-2; its home position, which the tile's colour gradient shows when there
    is no reference) and, when the reference is drawn, the solved order (rows 2-3). Rotation: for each
    (y, z) voxel column the 3-bit occupancy along x (bit x), of the current shape in rows 0-2 (row y, column z) and of
    the target in rows 3-5. Tangram: the 16 cells (outside, empty, piece i) in rows 0-3, columns 0-3, and each unplaced
    tray piece's type in row 5, column i (blank once placed)."""
    from neurips26.papers.mental_imagery.puzzles import PIECES

    fam = make_families()[name]
    off, out = SYM_OFFSETS[name], np.full((6, 6), SYM_BLANK, dtype=np.int64)
    if name in ("rush_hour", "sokoban"):
        return off + fam.cells(state)
    if name == "jigsaw":
        out[:2, :3] = off + np.array(state[1]).reshape(2, 3)
        if state[2]:  # the reference
            out[2:4, :3] = off + np.arange(6).reshape(2, 3)
    elif name == "rotation":
        for row, voxels in zip((0, 3), state):
            for x, y, z in voxels:
                out[row + y, z] += 1 << x
            out[row:row + 3, :3] += off
    elif name == "tangram":
        silhouette, pieces, placements = state
        out[:4, :4] = off + fam.cells(state).reshape(4, 4)
        for i, piece in enumerate(pieces):
            if placements[i] is None:
                out[5, i] = off + 5 + list(PIECES).index(piece)
    else:
        raise ValueError(name)
    return out.ravel()


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
    from neurips26.common.data.images import read_rgb

    out = []
    for name in JIGSAW_IMAGES:  # box-downsampled once so that the shorter side is about 96 pixels (cheap crops)
        photo = read_rgb(data_dir / name, "dofp_lut_skimage")
        f = max(1, min(photo.shape[:2]) // 96)
        h, w = photo.shape[0] // f * f, photo.shape[1] // f * f
        out.append(photo[:h, :w].reshape(h // f, f, w // f, f, 3).mean(axis=(1, 3)))
    return out


def _crop(rng, photo: np.ndarray, k: int = Jigsaw.TILE) -> np.ndarray:
    """A random crop of 2/3 of the photo's shorter side at aspect 2:3, box-downsampled to 2k x 3k (six k x k tiles)."""
    h, w = photo.shape[:2]
    ch = int(min(h, w * 2 / 3) * 2 / 3) // (2 * k) * (2 * k)
    cw = ch * 3 // 2
    r, c = rng.integers(0, h - ch + 1), rng.integers(0, w - cw + 1)
    f = ch // (2 * k)
    return photo[r:r + ch, c:c + cw].reshape(2 * k, f, 3 * k, f, 3).mean(axis=(1, 3))


def gradient(k: int) -> np.ndarray:
    """(2k, 3k, 2): the position-coding gradient of a 2k x 3k jigsaw crop: u = (column + 1/2) / 3k (red), v = (row +
    1/2) / 2k (blue). Averaged over a tile, u = (c + 1/2) / 3 for home column c, v = (r + 1/2) / 2 for home row r."""
    v, u = np.meshgrid((np.arange(2 * k) + 0.5) / (2 * k), (np.arange(3 * k) + 0.5) / (3 * k), indexing="ij")
    return np.stack([u, v], axis=-1)


def jigsaw_image(crop: np.ndarray, alpha: float) -> np.ndarray:
    """The crop with the gradient blended into its red and blue channels (weight alpha; green stays the photograph's),
    as in gradient-puzzle games: the solved order is readable from the tiles alone. From a tile's mean red R,
    (R - (1 - alpha) / 2) / alpha = (c + 1/2) / 3 + e with |e| <= (1 - alpha) / (2 alpha) whatever the photograph, so
    for alpha > 3/4 the nearest of the three column codes is the tile's home column (rows: alpha > 2/3). alpha 0: the
    crop unchanged."""
    if alpha <= 0:
        return crop
    out = np.clip(crop, 0.0, 1.0).copy()
    g = gradient(crop.shape[0] // 2)
    out[..., 0] = (1 - alpha) * out[..., 0] + alpha * g[..., 0]
    out[..., 2] = (1 - alpha) * out[..., 2] + alpha * g[..., 1]
    return out


def jigsaw_options(cfg) -> tuple[float, int, bool]:
    """puzzle.jigsaw: (gradient weight, tile side in pixels, reference drawn); absent: (0, 4, True), the photo jigsaw
    with the reference."""
    opt = cfg.puzzle.get("jigsaw") or {}
    alpha, tile, ref = float(opt.get("gradient", 0.0)), int(opt.get("tile", Jigsaw.TILE)), bool(opt.get("reference", True))
    if tile not in (4, 6):
        raise UserError(f"puzzle.jigsaw.tile must be 4 or 6 (pixels), not {tile}")
    if not ref and alpha <= 0.75:
        raise UserError("a jigsaw without the reference needs puzzle.jigsaw.gradient > 0.75 (its solved order must be "
                        f"readable from the tiles), got {alpha}")
    return alpha, tile, ref


PARTS = ("train", "dev", "test")


def lengths(cfg) -> dict[str, int]:
    """The longest shortest solution kept per family (puzzle.lengths), each <= puzzle.max_len (the sequence bound)."""
    out = {name: int(v) for name, v in cfg.puzzle.lengths.items()}
    if max(out.values()) > int(cfg.puzzle.max_len):
        raise UserError(f"puzzle.lengths {out} exceed puzzle.max_len {cfg.puzzle.max_len}")
    return out


def _rush(cfg, seed: int, boards, n: int, part: str, max_len: int) -> list[Example]:
    """Rush Hour: boards of the file with <= puzzle.rush_board_moves moves, solved by BFS; every state along a
    shortest solution with 1..max_len moves left is an instance (a suffix of a shortest solution is shortest). A
    shuffle of the lines drawn from the run seed (seed stream 'rush_split'; the file is ordered by difficulty) is dealt
    to train / dev / test in turn, so the three parts of one seed are disjoint and another seed re-draws the split."""
    rh = make_families()["rush_hour"]
    cap = int(cfg.puzzle.rush_board_moves)
    lines = [b for moves, b in boards if moves <= cap]
    order = seed_rng(seed, "rush_split").permutation(len(lines))
    picked, seen = [], set()
    for idx in order[PARTS.index(part)::len(PARTS)]:
        sol = rh.solve(lines[idx], cap)
        if not sol:
            continue
        _, states = replay(rh, lines[idx], sol)
        for k, s in enumerate(states[:-1]):
            if len(sol) - k <= max_len and s not in seen and len(picked) < n:
                seen.add(s)
                picked.append(_example(rh, s, sol[k:]))
        if len(picked) >= n:
            return picked
    raise UserError(f"only {len(picked)} Rush Hour boards with <= {max_len} moves left in the {part} part; lower n "
                    "or raise puzzle.rush_board_moves")


def generate(cfg, seed: int, n: int, boards: list[tuple[int, str]], photos: list[np.ndarray],
             part: str) -> list[Example]:
    """n instances per family, each with a shortest solution of 1..puzzle.lengths[family] actions, for the run seed
    `seed`. Rush Hour from the file (see _rush); the other families drawn from the generators with the part's own seed
    stream ('puzzles_train', 'puzzles_dev', 'puzzles_test')."""
    if part not in PARTS:
        raise ValueError(part)
    fams = make_families()
    rng = seed_rng(seed, f"puzzles_{part}")
    L = lengths(cfg)
    out = _rush(cfg, seed, boards, n, part, L["rush_hour"])
    sk = fams["sokoban"]
    count = 0
    while count < n:
        start = sk.generate(rng, int(rng.integers(0, int(cfg.puzzle.sokoban_inner_walls) + 1)))
        sol = sk.solve(start, L["sokoban"])
        if sol:
            out.append(_example(sk, start, sol))
            count += 1
    jg = fams["jigsaw"]
    alpha, tile, reference = jigsaw_options(cfg)
    count = 0
    while count < n:  # 1..lengths[jigsaw] random transpositions of the solved order
        perm = list(range(6))
        for _ in range(int(rng.integers(1, L["jigsaw"] + 1))):
            i, j = rng.choice(6, size=2, replace=False)
            perm[i], perm[j] = perm[j], perm[i]
        perm = tuple(perm)
        if perm == tuple(range(6)):
            continue
        image = jigsaw_image(_crop(rng, photos[int(rng.integers(len(photos)))], tile), alpha)
        state = (image, perm, reference)
        out.append(_example(jg, state, jg.solve(state, L["jigsaw"])))
        count += 1
    rot = fams["rotation"]
    count = 0
    while count < n:
        start = rot.generate(rng, int(cfg.puzzle.cubes), int(rng.integers(1, int(cfg.puzzle.rotation_turns) + 1)))
        sol = rot.solve(start, L["rotation"])
        if sol:
            out.append(_example(rot, start, sol))
            count += 1
    tg = fams["tangram"]
    for _ in range(n):
        start = tg.generate(rng)
        out.append(_example(tg, start, tg.solve(start, L["tangram"])))
    return out


def make_puzzles(cfg, seed: int, rush_file: Path, photo_dir: Path) -> dict[str, list[Example]]:
    """The train, dev and test puzzles of one seed (the same for every variant), every draw from the run seed."""
    boards, photos, sizes = rush_boards(rush_file), jigsaw_photos(photo_dir), cfg.data_sizes
    return {part: generate(cfg, seed, int(sizes[part]), boards, photos, part) for part in PARTS}


def _encode(value, arrays: list):
    """A start state as JSON: tuples, frozensets and None tagged; arrays (jigsaw photos) stored beside it by index."""
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {"array": len(arrays) - 1}
    if isinstance(value, frozenset):
        return {"frozenset": sorted((_encode(v, arrays) for v in value), key=json.dumps)}
    if isinstance(value, (tuple, list)):
        return {"tuple" if isinstance(value, tuple) else "list": [_encode(v, arrays) for v in value]}
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    return value  # str, int, float, bool, None


def _decode(value, arrays):
    if not isinstance(value, dict):
        return value
    (kind, inner), = value.items()
    if kind == "array":
        return arrays[f"array{inner}"]
    items = [_decode(v, arrays) for v in inner]
    return {"frozenset": frozenset, "tuple": tuple, "list": list}[kind](items)


def save_puzzles(path: Path, parts: dict[str, list[Example]]) -> None:
    """Cache the puzzles of one seed (the solving is the slow part): family, solver actions and start state per
    instance, as JSON plus the start states' arrays in one .npz (read without pickle); the images and cells are
    rebuilt by replay on load."""
    arrays: list = []
    index = {part: [[e.family, [int(a) for a in e.actions], _encode(e.start, arrays)] for e in ex]
             for part, ex in parts.items()}
    encoded = np.frombuffer(json.dumps(index).encode(), dtype=np.uint8)
    write_npz(path, {"index": encoded, **{f"array{k}": a for k, a in enumerate(arrays)}})


def load_puzzles(path: Path) -> dict[str, list[Example]]:
    if not path.is_file():
        raise UserError(f"{path} is missing; run the mental_imagery_puzzles rule")
    with np.load(path, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    raw = json.loads(arrays.pop("index").tobytes().decode())
    fams = make_families()
    return {part: [_example(fams[name], _decode(start, arrays), actions) for name, actions, start in ex]
            for part, ex in raw.items()}

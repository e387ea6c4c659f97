"""Five puzzle families, each with a state, legal actions, a renderer (24x24 RGB), a board-cell view (for probes), a
canonical solver (shortest solution, breadth-first in a fixed action order) and a verifier that replays actions.

Every renderer draws on a 6x6 layout grid of 4x4-pixel cells, so that one input patch (4x4 pixels) holds one board
cell, one jigsaw tile, one rotation view or one tray piece (a ViT whose patches match the board's cells).

A family object exposes: name, actions (list of action labels), apply(state, a) -> new state or None (illegal),
solved(state), render(state) -> float array (24, 24, 3), cells(state) -> int array, n_classes, solve(state) -> list.
"""

from __future__ import annotations

from collections import deque
from itertools import product

import numpy as np

CANVAS = 24


def bfs(family, start, max_len: int):
    """Shortest action list from start to a solved state (actions tried in index order), or None beyond max_len."""
    key = family.key
    if family.solved(start):
        return []
    seen, queue = {key(start)}, deque([(start, [])])
    while queue:
        state, path = queue.popleft()
        if len(path) >= max_len:
            continue
        for a in range(len(family.actions)):
            nxt = family.apply(state, a)
            if nxt is None or key(nxt) in seen:
                continue
            if family.solved(nxt):
                return path + [a]
            seen.add(key(nxt))
            queue.append((nxt, path + [a]))
    return None


def replay(family, start, actions) -> tuple[bool, list]:
    """Verifier: apply the actions one by one; (solved at the end and every action legal, the visited states)."""
    states, state = [start], start
    for a in actions:
        if not 0 <= a < len(family.actions):
            return False, states
        state = family.apply(state, a)
        if state is None:
            return False, states
        states.append(state)
    return family.solved(state), states


def _palette(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(0.15, 0.95, size=(n, 3))


# ----------------------------------------------------------------------------------------------------------- Rush Hour
class RushHour:
    """6x6 Rush Hour (boards of reasoning-gym's rush_18k.txt): 'o' empty, 'x' wall, letters vehicles, A the red car on
    row 2 that must reach the right edge. An action slides one vehicle by d in {-4..-1, 1..4} cells (one move)."""

    name = "rush_hour"
    LETTERS = "ABCDEFGHIJKLMNOP"
    DISTANCES = [-4, -3, -2, -1, 1, 2, 3, 4]
    n_classes = 2 + len(LETTERS)

    def __init__(self):
        self.actions = [f"{p}{d:+d}" for p in self.LETTERS for d in self.DISTANCES]
        self.colors = np.vstack([[1, 1, 1], [0.2, 0.2, 0.2], [[0.9, 0.05, 0.05]], _palette(len(self.LETTERS) - 1)])

    @staticmethod
    def key(state):
        return state

    def apply(self, state: str, a: int):
        piece, d = self.LETTERS[a // 8], self.DISTANCES[a % 8]
        first = state.find(piece)
        if first < 0:
            return None
        size = state.count(piece)  # vehicles are straight and contiguous: 2 or 3 cells
        horizontal = first % 6 < 5 and state[first + 1] == piece
        step = 1 if horizontal else 6
        cells = [first + k * step for k in range(size)]
        r, c = divmod(first, 6)
        lo = (c if horizontal else r) + d  # the new first cell along the vehicle's line
        if not (0 <= lo and lo + size <= 6):
            return None
        moved = [first + (d + k) * step for k in range(size)]
        # every cell swept on the way must be empty
        path = range(cells[-1] + step, moved[-1] + 1, step) if d > 0 else range(moved[0], first, step)
        if any(state[j] != "o" for j in path):
            return None
        board = list(state)
        for i in cells:
            board[i] = "o"
        for j in moved:
            board[j] = piece
        return "".join(board)

    @staticmethod
    def solved(state: str) -> bool:
        return state[17] == "A"

    def cells(self, state: str) -> np.ndarray:
        return np.array([0 if c == "o" else 1 if c == "x" else 2 + self.LETTERS.index(c) for c in state])

    def render(self, state: str) -> np.ndarray:
        grid = self.colors[self.cells(state)].reshape(6, 6, 3)
        return np.kron(grid, np.ones((4, 4, 1)))

    def solve(self, state: str, max_len: int):
        return bfs(self, state, max_len)


def parse_rush(text: str, source: str) -> list[tuple[int, str]]:
    """(minimum number of moves, board) per line of rush_18k.txt."""
    from neurips26.common.pipeline.errors import UserError

    boards = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if len(parts) < 2 or not parts[0].isdigit() or len(parts[1]) != 36 or set(parts[1]) - set("ox" + RushHour.LETTERS):
            raise UserError(f"{source}:{n}: expected '<moves> <36-character board> [<cluster size>]', got {line!r}")
        boards.append((int(parts[0]), parts[1]))
    if not boards:
        raise UserError(f"{source}: no Rush Hour boards")
    return boards


# ----------------------------------------------------------------------------------------------------------- Sokoban
class Sokoban:
    """6x6 Sokoban: walls on the border (plus inner walls), one box, one goal; actions U D L R move the player, who pushes
    the box when walking into it. State: (walls frozenset, goal, box, player) with cells indexed r * 6 + c."""

    name = "sokoban"
    n_classes = 7
    MOVES = {"U": -6, "D": 6, "L": -1, "R": 1}

    def __init__(self):
        self.actions = list(self.MOVES)
        self.colors = np.array([[1, 1, 1], [0.3, 0.3, 0.3], [0.2, 0.8, 0.2], [0.7, 0.45, 0.1], [0.1, 0.4, 0.1],
                                [0.1, 0.2, 0.9], [0.1, 0.7, 0.9]])

    @staticmethod
    def key(state):
        return state[2], state[3]

    def apply(self, state, a: int):
        walls, goal, box, player = state
        d = self.MOVES[self.actions[a]]
        target = player + d
        if target in walls:
            return None
        if target == box:
            beyond = box + d
            if beyond in walls:
                return None
            return walls, goal, beyond, target
        return walls, goal, box, target

    @staticmethod
    def solved(state) -> bool:
        return state[2] == state[1]

    def cells(self, state) -> np.ndarray:
        walls, goal, box, player = state
        out = np.zeros(36, dtype=int)
        out[list(walls)] = 1
        out[goal] = 2
        out[box] = 4 if box == goal else 3
        out[player] = 6 if player == goal else 5
        return out

    def render(self, state) -> np.ndarray:
        return np.kron(self.colors[self.cells(state)].reshape(6, 6, 3), np.ones((4, 4, 1)))

    def solve(self, state, max_len: int):
        return bfs(self, state, max_len)

    def generate(self, rng: np.random.Generator, inner_walls: int):
        border = {r * 6 + c for r in range(6) for c in range(6) if r in (0, 5) or c in (0, 5)}
        inside = [r * 6 + c for r in range(1, 5) for c in range(1, 5)]
        picks = rng.choice(inside, size=3 + inner_walls, replace=False)
        walls = frozenset(border | set(int(x) for x in picks[3:]))
        return walls, int(picks[0]), int(picks[1]), int(picks[2])


# ----------------------------------------------------------------------------------------------------------- jigsaw
class Jigsaw:
    """2x3 jigsaw: a 2k x 3k photograph crop (k = the tile side, 4 or 6 pixels) cut into six k x k tiles and scrambled.
    The image shows the scrambled tiles (pixel rows 0..2k-1, columns 0..3k-1) and, when the state says so, the solved
    photograph below them (rows 2k..4k-1, the reference). Without the reference the crop carries a position-coding
    colour gradient (data.jigsaw_image), so that a tile's home position is readable from the tile itself. State:
    (image, perm, reference) where perm[p] is the tile shown at position p and reference says whether the solved
    photograph is drawn. Action swap(i, j), i < j. Solved when perm is the identity."""

    name = "jigsaw"
    n_classes = 6
    TILE = 4  # the tile side of the default definition (one 4x4-pixel cell of the 6x6 layout grid)

    def __init__(self):
        self.pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
        self.actions = [f"swap{i}{j}" for i, j in self.pairs]

    @staticmethod
    def key(state):
        return tuple(state[1])

    def apply(self, state, a: int):
        image, perm, reference = state
        i, j = self.pairs[a]
        perm = list(perm)
        perm[i], perm[j] = perm[j], perm[i]
        return image, tuple(perm), reference

    @staticmethod
    def solved(state) -> bool:
        return tuple(state[1]) == tuple(range(6))

    def cells(self, state) -> np.ndarray:
        return np.array(state[1])

    def render(self, state) -> np.ndarray:
        image, perm, reference = state
        k = image.shape[0] // 2
        out = np.zeros((CANVAS, CANVAS, 3))
        for p, t in enumerate(perm):
            pr, pc = divmod(p, 3)
            tr, tc = divmod(t, 3)
            out[pr * k:pr * k + k, pc * k:pc * k + k] = image[tr * k:tr * k + k, tc * k:tc * k + k]
        if reference:
            out[2 * k:4 * k, :3 * k] = image  # the reference: the solved photograph
        return out

    def solve(self, state, max_len: int):
        """Selection order: fix position 0, 1, ... by swapping in the tile that belongs there (<= 5 swaps, and the
        shortest: a permutation with c cycles needs exactly 6 - c transpositions)."""
        perm, actions = list(state[1]), []
        for p in range(6):
            if perm[p] != p:
                q = perm.index(p)
                actions.append(self.pairs.index((p, q)))
                perm[p], perm[q] = perm[q], perm[p]
        return actions if len(actions) <= max_len else None


# ----------------------------------------------------------------------------------------------------------- rotation
def _rot(voxels, axis: int):
    """Rotate a set of (x, y, z) voxels by +90 degrees about `axis`, then shift to the origin corner."""
    out = []
    for x, y, z in voxels:
        if axis == 0:
            x, y, z = x, -z, y
        elif axis == 1:
            x, y, z = z, y, -x
        else:
            x, y, z = -y, x, z
        out.append((x, y, z))
    return _normal(out)


def _normal(voxels):
    m = [min(v[i] for v in voxels) for i in range(3)]
    return frozenset((x - m[0], y - m[1], z - m[2]) for x, y, z in voxels)


class Rotation:
    """3D mental rotation: a polycube (cubes in a 3x3x3 box) and a target orientation; actions rotate the current shape
    by +90 degrees about x, y or z. State: (current voxels, target voxels). Rendered as three depth-shaded orthographic
    views of the current shape (top row) and of the target (bottom row)."""

    name = "rotation"
    n_classes = 2
    actions = ["rotx", "roty", "rotz"]

    @staticmethod
    def key(state):
        return state[0]

    def apply(self, state, a: int):
        return _rot(state[0], a), state[1]

    @staticmethod
    def solved(state) -> bool:
        return state[0] == state[1]

    def cells(self, state) -> np.ndarray:
        grid = np.zeros((3, 3, 3), dtype=int)
        for v in state[0]:
            grid[v] = 1
        return grid.ravel()

    @staticmethod
    def _views(voxels) -> np.ndarray:
        grid = np.zeros((3, 3, 3))
        for v in voxels:
            grid[v] = 1
        views = []
        for axis in range(3):
            g = np.moveaxis(grid, axis, 0)
            hit = g.argmax(axis=0)
            views.append(np.where(g.any(axis=0), 1.0 - 0.3 * hit, 0.0))
        return views

    def render(self, state) -> np.ndarray:
        """One 3x3-pixel view (one pixel per voxel column, shaded by depth) per 4x4 patch: the current shape's three
        views in layout row 1, the target's in layout row 4 (columns 1, 2, 3)."""
        out = np.zeros((CANVAS, CANVAS, 3))
        tints = np.array([[1, 0.3, 0.3], [0.3, 1, 0.3], [0.3, 0.3, 1]])
        for row, voxels in enumerate(state):
            for k, view in enumerate(self._views(voxels)):
                r, c = 4 + row * 12, 4 + k * 4
                out[r:r + 3, c:c + 3] = view[..., None] * tints[k]
        return out

    def solve(self, state, max_len: int):
        return bfs(self, state, max_len)

    def generate(self, rng: np.random.Generator, cubes: int, turns: int):
        voxels = {(1, 1, 1)}
        while len(voxels) < cubes:
            x, y, z = list(voxels)[rng.integers(len(voxels))]
            d = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)][rng.integers(6)]
            v = (x + d[0], y + d[1], z + d[2])
            if all(0 <= c < 3 for c in v):
                voxels.add(v)
        start = _normal(voxels)
        target = start
        for _ in range(turns):
            target = _rot(target, int(rng.integers(3)))
        return start, target


# ----------------------------------------------------------------------------------------------------------- tangram
PIECES = {  # polyominoes, (row, col) offsets; no rotation
    "I2": [(0, 0), (0, 1)], "V2": [(0, 0), (1, 0)], "I3": [(0, 0), (0, 1), (0, 2)], "V3": [(0, 0), (1, 0), (2, 0)],
    "L3": [(0, 0), (1, 0), (1, 1)], "J3": [(0, 1), (1, 0), (1, 1)], "O4": [(0, 0), (0, 1), (1, 0), (1, 1)],
}


class Tangram:
    """Shape packing on a 4x4 board: a silhouette made of SLOTS polyomino pieces shown in a tray; action place(i, cell)
    puts tray piece i with its anchor at the cell. Legal when the piece is unplaced, lies inside the silhouette and
    overlaps nothing. Solved when the silhouette is covered. State: (silhouette, pieces, placements)."""

    name = "tangram"
    n_classes = 5  # outside, silhouette empty, piece 0, 1, 2
    SLOTS = 2  # pieces per puzzle (the pilot: three pieces were not learnable within the CPU budget)

    def __init__(self):
        self.actions = [f"p{i}@{c}" for i in range(self.SLOTS) for c in range(16)]
        self.colors = np.array([[0, 0, 0], [0.6, 0.6, 0.6], [0.9, 0.2, 0.2], [0.2, 0.8, 0.2], [0.2, 0.3, 0.95]])

    @staticmethod
    def key(state):
        return state[2]

    @staticmethod
    def _covered(pieces, placements):
        cells = {}
        for i, anchor in enumerate(placements):
            if anchor is not None:
                r0, c0 = divmod(anchor, 4)
                for dr, dc in PIECES[pieces[i]]:
                    cells[(r0 + dr) * 4 + c0 + dc] = i
        return cells

    def apply(self, state, a: int):
        silhouette, pieces, placements = state
        i, anchor = divmod(a, 16)
        if placements[i] is not None:
            return None
        taken = self._covered(pieces, placements)
        r0, c0 = divmod(anchor, 4)
        for dr, dc in PIECES[pieces[i]]:
            r, c = r0 + dr, c0 + dc
            if not (0 <= r < 4 and 0 <= c < 4) or r * 4 + c not in silhouette or r * 4 + c in taken:
                return None
        placements = list(placements)
        placements[i] = anchor
        return silhouette, pieces, tuple(placements)

    def solved(self, state) -> bool:
        return all(p is not None for p in state[2])

    def cells(self, state) -> np.ndarray:
        silhouette, pieces, placements = state
        out = np.zeros(16, dtype=int)
        out[list(silhouette)] = 1
        for cell, i in self._covered(pieces, placements).items():
            out[cell] = 2 + i
        return out

    def render(self, state) -> np.ndarray:
        silhouette, pieces, placements = state
        out = np.zeros((CANVAS, CANVAS, 3))
        out[:16, :16] = np.kron(self.colors[self.cells(state)].reshape(4, 4, 3), np.ones((4, 4, 1)))
        for i, name in enumerate(pieces):  # the tray: unplaced piece i in the 4x4 patch at rows 20-23, columns 4i..
            if placements[i] is None:   # one pixel per piece cell
                for dr, dc in PIECES[name]:
                    out[20 + dr, 4 * i + dc] = self.colors[2 + i]
        return out

    def solve(self, state, max_len: int):
        """Depth-first, pieces in slot order, anchors in raster order: the first packing found (always SLOTS actions)."""
        def place(s, i):
            if i == self.SLOTS:
                return []
            for anchor in range(16):
                nxt = self.apply(s, i * 16 + anchor)
                if nxt is not None:
                    rest = place(nxt, i + 1)
                    if rest is not None:
                        return [i * 16 + anchor] + rest
            return None

        sol = place(state, 0)
        return sol if sol is not None and len(sol) <= max_len else None

    def generate(self, rng: np.random.Generator):
        names = list(PIECES)
        while True:
            pieces = tuple(names[k] for k in rng.choice(len(names), size=self.SLOTS))
            state = (frozenset(range(16)), pieces, (None,) * self.SLOTS)
            ok = True
            for i in range(self.SLOTS):
                options = [a for a in range(i * 16, i * 16 + 16) if self.apply(state, a) is not None]
                if not options:
                    ok = False
                    break
                state = self.apply(state, int(rng.choice(options)))
            if ok:
                silhouette = frozenset(self._covered(pieces, state[2]))
                return silhouette, pieces, (None,) * self.SLOTS


FAMILIES = {"rush_hour": RushHour, "sokoban": Sokoban, "jigsaw": Jigsaw, "rotation": Rotation, "tangram": Tangram}


def make_families() -> dict:
    return {name: cls() for name, cls in FAMILIES.items()}


def all_actions(families: dict) -> list[tuple[str, int]]:
    return [(name, a) for name, fam in families.items() for a in range(len(fam.actions))]


__all__ = ["bfs", "replay", "make_families", "parse_rush", "product"]

"""mental_imagery puzzles: every solver's solutions pass its replay verifier, the breadth-first solver is shortest
(brute force), the file's move counts agree with the solver, and the renderers show the board state."""

from __future__ import annotations

import importlib.util
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.mental_imagery import data
from neurips26.papers.mental_imagery.puzzles import PIECES, make_families, parse_rush, replay

CFG = OmegaConf.create({"puzzle": {"max_len": 5, "sokoban_inner_walls": 2, "cubes": 4,
                                   "rotation_turns": 3, "rush_board_moves": 6,
                                   "lengths": {"rush_hour": 5, "sokoban": 5, "jigsaw": 5, "rotation": 3,
                                               "tangram": 3}}})


def rush_file() -> Path:
    spec = importlib.util.find_spec("reasoning_gym")  # locates the package without importing it
    if spec is None:
        pytest.skip("reasoning-gym is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "rush_18k.txt"


# the jigsaw definitions: the photo jigsaw with the reference (puzzle.jigsaw absent), and without the reference, its
# crop carrying the position-coding gradient, with 4x4- or 6x6-pixel tiles (JOURNAL "Pilot 7")
JIGSAWS = {"reference": {}, "gradient4": {"gradient": 0.8, "tile": 4, "reference": False},
           "gradient6": {"gradient": 0.8, "tile": 6, "reference": False}}


@pytest.fixture(scope="module", params=list(JIGSAWS))
def examples(request):
    rng = np.random.default_rng(5)
    photos = [rng.uniform(size=(64, 96, 3)) for _ in range(2)]
    boards = data.rush_boards(rush_file())
    cfg = OmegaConf.merge(CFG, {"puzzle": {"jigsaw": JIGSAWS[request.param]}})
    return data.generate(cfg, 3, 12, boards, photos, "train")


def test_every_solution_replays_to_a_solved_state(examples):
    fams = make_families()
    assert {e.family for e in examples} == set(fams)
    for e in examples:
        ok, states = replay(fams[e.family], e.start, e.actions)
        assert ok and 1 <= len(e.actions) <= CFG.puzzle.lengths[e.family]
        assert len(states) == len(e.images) == len(e.cells)
        # a wrong move somewhere breaks the replay (illegal or unsolved), except when it is another solution
        assert not replay(fams[e.family], e.start, e.actions[:-1])[0]


def brute_force_length(family, start, max_len):
    for n in range(max_len + 1):
        for seq in product(range(len(family.actions)), repeat=n):
            if replay(family, start, list(seq))[0]:
                return n
    return None


def test_bfs_is_shortest_against_brute_force(examples):
    fams = make_families()
    for e in examples:
        if e.family in ("rotation", "sokoban", "jigsaw") and len(e.actions) <= 3:
            assert brute_force_length(fams[e.family], e.start, 3) == len(e.actions)


def test_rush_solver_matches_the_file_move_counts():
    rh = make_families()["rush_hour"]
    boards = [b for b in data.rush_boards(rush_file()) if b[0] <= 4][:40]
    for moves, board in boards:
        assert len(rh.solve(board, 6)) == moves


def test_rush_parser_rejects_bad_lines():
    with pytest.raises(UserError, match="f.txt:2"):
        parse_rush("03 " + "o" * 36 + " 5\n03 ooo 5\n", "f.txt")


def test_renderers_show_the_board(examples):
    fams = make_families()
    for e in examples:
        fam = fams[e.family]
        for img, cells in zip(e.images, e.cells):
            if e.family in ("rush_hour", "sokoban"):
                centres = img[2::4, 2::4].reshape(36, 3)
                assert np.allclose(centres, fam.colors[cells])
            elif e.family == "tangram":
                assert np.allclose(img[2:16:4, 2:16:4].reshape(16, 3), fam.colors[cells])
        if e.family == "jigsaw":
            image, perm, reference = e.start
            k = image.shape[0] // 2
            for img, cells in zip(e.images, e.cells):  # every state of the solution: tile cells[p] at position p
                for p, t in enumerate(cells):
                    pr, pc = divmod(p, 3)
                    tr, tc = divmod(t, 3)
                    tile = image[k * tr:k * tr + k, k * tc:k * tc + k]
                    assert np.allclose(img[k * pr:k * pr + k, k * pc:k * pc + k], tile)
                    # one tile = one input patch: a 4x4 cell of the 6x6 layout grid, or one of the 16 6x6-pixel patches
                    assert np.allclose(data.patches(img, k)[(24 // k) * pr + pc].reshape(k, k, 3), tile)
                if reference:
                    assert np.allclose(img[2 * k:4 * k, :3 * k], image)  # the reference below
                assert not img[:, 3 * k:].any() and (reference or not img[2 * k:].any())  # nothing else is drawn
            assert np.allclose(e.images[-1][:2 * k, :3 * k], image)  # solved: the (gradient) crop itself
        if e.family == "rotation":
            grid = e.cells[0].reshape(3, 3, 3)
            top = e.images[0][4:7, 4:7, 0] > 0  # view along x of the current shape: occupied where any voxel
            assert np.array_equal(top, grid.any(axis=0))
            # one view = one input patch: the patch holds the whole view, nothing else
            assert np.allclose(data.patches(e.images[0], 4)[6 + 1].reshape(4, 4, 3)[:3, :3], e.images[0][4:7, 4:7])


def test_tangram_pieces_cover_the_silhouette(examples):
    fams = make_families()
    for e in (e for e in examples if e.family == "tangram"):
        silhouette, pieces, _ = e.start
        assert len(silhouette) == sum(len(PIECES[p]) for p in pieces)
        assert (e.cells[-1] >= 2).sum() == len(silhouette)
        assert fams["tangram"].solved(replay(fams["tangram"], e.start, e.actions)[1][-1])


def test_patches_are_the_16_visual_tokens_and_the_36_input_cells():
    img = np.arange(24 * 24 * 3, dtype=float).reshape(24, 24, 3)
    tok = data.patches(img)
    assert tok.shape == (16, 108)
    assert np.array_equal(tok[5].reshape(6, 6, 3), img[6:12, 6:12])
    cells = data.patches(img, 4)
    assert cells.shape == (36, 48)
    assert np.array_equal(cells[7].reshape(4, 4, 3), img[4:8, 4:8])


def test_rush_parts_are_disjoint_and_shortest():
    """Train, dev and test Rush Hour instances come from disjoint lines of the file; each is a shortest solution."""
    boards = data.rush_boards(rush_file())
    rh = make_families()["rush_hour"]
    cfg = OmegaConf.merge(CFG, {"puzzle": {"rush_board_moves": 4, "lengths": {"rush_hour": 2}}})
    parts = {p: data._rush(cfg, 1, boards, 30, p, 2) for p in data.PARTS}
    starts = {p: {e.start for e in ex} for p, ex in parts.items()}
    assert not starts["train"] & starts["test"] and not starts["dev"] & starts["test"]
    for e in parts["test"][:10]:
        assert 1 <= len(e.actions) <= 2 and len(rh.solve(e.start, 4)) == len(e.actions)


def test_rush_split_follows_the_run_seed():
    """The Rush Hour split and every generated puzzle are drawn from the run seed (issue #51 item 3): the same seed
    gives the same instances, another seed another split and other puzzles."""
    boards = data.rush_boards(rush_file())
    cfg = OmegaConf.merge(CFG, {"puzzle": {"rush_board_moves": 4, "lengths": {"rush_hour": 2}}})
    starts = {seed: [e.start for e in data._rush(cfg, seed, boards, 20, "train", 2)] for seed in (0, 1)}
    assert starts[0] == [e.start for e in data._rush(cfg, 0, boards, 20, "train", 2)]
    assert starts[0] != starts[1] and set(starts[0]) != set(starts[1])
    photos = [np.random.default_rng(0).uniform(size=(64, 96, 3))]
    one, again, other = (data.generate(CFG, seed, 4, boards, photos, "dev") for seed in (0, 0, 1))
    assert [(e.family, e.actions) for e in one] == [(e.family, e.actions) for e in again]
    assert all(np.array_equal(a.images, b.images) for a, b in zip(one, again))
    assert any(not np.array_equal(a.images, b.images) for a, b in zip(one, other) if a.family != "rush_hour")


def test_blind_baseline_is_the_best_constant():
    from neurips26.papers.mental_imagery.experiments import constant_baseline

    examples = data.generate(CFG, 4, 12, data.rush_boards(rush_file()),
                             [np.random.default_rng(0).uniform(size=(64, 96, 3))], "train")
    fams = make_families()
    blind = constant_baseline(examples, examples, fams)
    for name, fam in fams.items():
        ex = [e for e in examples if e.family == name]
        # no training solution, replayed on every puzzle, solves more than the chosen one
        best = max(np.mean([replay(fam, e.start, o.actions)[0] for e in ex]) for o in ex)
        assert blind[name] == pytest.approx(best)


def test_puzzle_cache_round_trips(tmp_path):
    """The cached puzzles (family, actions, start) rebuild the same instances: images, cells and actions."""
    examples = data.generate(CFG, 5, 4, data.rush_boards(rush_file()),
                             [np.random.default_rng(0).uniform(size=(64, 96, 3))], "dev")
    data.save_puzzles(tmp_path / "p.npz", {"dev": examples})
    back = data.load_puzzles(tmp_path / "p.npz")["dev"]
    assert [(e.family, e.actions) for e in back] == [(e.family, e.actions) for e in examples]
    for a, b in zip(examples, back):
        assert np.array_equal(a.images, b.images) and np.array_equal(a.cells, b.cells)


def test_symbols_are_the_board_state_and_nothing_else(examples):
    """The symbolic input (perfect perception) against each family's state: decoded back, it gives the state; two
    states that render differently get different symbols; ids stay in each family's own range."""
    from neurips26.papers.mental_imagery.puzzles import _normal

    fams = make_families()
    ranges = {name: set(range(off, off + n)) for (name, off), n in
              zip(data.SYM_OFFSETS.items(), (18, 7, 6, 8, 12))}
    for e in examples:
        sym = data.symbols(e.family, e.start).reshape(6, 6)
        off = data.SYM_OFFSETS[e.family]
        assert set(sym.ravel()) - {data.SYM_BLANK} <= ranges[e.family]
        assert sym.max() < data.N_SYMBOLS
        if e.family in ("rush_hour", "sokoban"):
            assert (sym.ravel() - off == e.cells[0]).all()
        elif e.family == "jigsaw":
            assert tuple(sym[:2, :3].ravel() - off) == tuple(e.start[1])
            if e.start[2]:  # the reference is drawn: its symbols too
                assert (sym[2:4, :3].ravel() - off == np.arange(6)).all()
            else:
                assert (sym[2:4] == 0).all()
            assert (sym[4:] == 0).all() and (sym[:, 3:] == 0).all()
        elif e.family == "rotation":
            for row, voxels in zip((0, 3), e.start):
                codes = sym[row:row + 3, :3] - off
                back = {(x, y, z) for y in range(3) for z in range(3) for x in range(3) if codes[y, z] >> x & 1}
                assert _normal(back) == voxels
            assert (sym[:, 3:] == 0).all()
        else:
            silhouette, pieces, _ = e.start
            assert {i for i, c in enumerate(sym[:4, :4].ravel() - off) if c == 1} == set(silhouette)
            assert [list(PIECES)[c - off - 5] for c in sym[5, :len(pieces)]] == list(pieces)
        states = replay(fams[e.family], e.start, e.actions)[1]
        for a, b in zip(states, states[1:]):  # every action changes the board, and its symbols
            assert (data.symbols(e.family, a) != data.symbols(e.family, b)).any()


@pytest.mark.parametrize("tile", [4, 6])
def test_gradient_jigsaw_is_solvable_from_the_tiles_alone(tile):
    """Without the reference, the solved order is identifiable from the scrambled board alone: a tile's mean red and
    blue, decoded to the nearest column and row codes of the gradient, give its home position, whatever the photograph
    (random, black, white, stripes of 0 and 1). The bound: alpha > 3/4; at alpha 0.7 a white photo fools it."""
    rng = np.random.default_rng(0)
    jg = make_families()["jigsaw"]
    k = tile

    def home(img, p, alpha):
        pr, pc = divmod(p, 3)
        m = img[k * pr:k * pr + k, k * pc:k * pc + k].mean(axis=(0, 1))
        u, v = (m[0] - (1 - alpha) / 2) / alpha, (m[2] - (1 - alpha) / 2) / alpha
        c = int(np.argmin(np.abs(u - (np.arange(3) + 0.5) / 3)))
        r = int(np.argmin(np.abs(v - (np.arange(2) + 0.5) / 2)))
        return 3 * r + c

    stripes = np.zeros((2 * k, 3 * k, 3))
    stripes[:, ::2] = 1
    crops = [rng.uniform(size=(2 * k, 3 * k, 3)) for _ in range(20)] + [np.zeros((2 * k, 3 * k, 3)),
                                                                         np.ones((2 * k, 3 * k, 3)), stripes]
    for crop in crops:
        image = data.jigsaw_image(crop, 0.8)
        assert np.allclose(image[..., 1], crop[..., 1])  # green stays the photograph's
        for _ in range(5):
            perm = tuple(int(x) for x in rng.permutation(6))
            board = jg.render((image, perm, False))
            assert [home(board, p, 0.8) for p in range(6)] == list(perm)
    fooled = jg.render((data.jigsaw_image(np.ones((2 * k, 3 * k, 3)), 0.7), tuple(range(6)), False))
    assert [home(fooled, p, 0.7) for p in range(6)] != list(range(6))


def test_jigsaw_without_reference_needs_the_gradient():
    cfg = OmegaConf.merge(CFG, {"puzzle": {"jigsaw": {"gradient": 0.5, "reference": False}}})
    with pytest.raises(UserError, match="gradient > 0.75"):
        data.jigsaw_options(cfg)
    assert data.jigsaw_options(CFG) == (0.0, 4, True)  # absent: the photo jigsaw with the reference, as before

"""The claim's probe (intermediate_probe.py) separates a hidden state that holds the intermediate board s_t from one
that holds only what the start and the goal give away (issue #64 item 2), on planted puzzles where the order of the
moves is not readable from (s_0, s_T)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from neurips26.papers.mental_imagery.intermediate_probe import (
    changed_accuracy,
    exact_accuracy,
    intermediate_steps,
    probe_scores,
)

CELLS, K = 6, 3


def _puzzles(n: int, rng) -> list:
    """Two moves each: cells a and b change to new values, in a random order; s_1 holds the first move only."""
    out = []
    for _ in range(n):
        s0 = rng.integers(0, K, CELLS)
        a, b = rng.choice(CELLS, 2, replace=False)
        if rng.random() < 0.5:
            a, b = b, a
        s1, s2 = s0.copy(), s0.copy()
        s1[a] = (s0[a] + 1) % K
        s2[a], s2[b] = s1[a], (s0[b] + 1) % K
        out.append(SimpleNamespace(actions=[0, 1], cells=[s0, s1, s2]))
    return out


def _hidden(examples, boards_of, rng) -> np.ndarray:
    """(1 layer, N, T = 2, d): at the first action token, the one-hot of the boards `boards_of` picks, plus noise."""
    feats = np.stack([np.concatenate([np.eye(K)[b].ravel() for b in boards_of(e)]) for e in examples])
    H = np.zeros((1, len(examples), 2, feats.shape[1]))
    H[0, :, 0] = feats + 0.01 * rng.normal(size=feats.shape)
    return H


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(0)
    examples = _puzzles(600, rng)
    features = {"holds_s_t": _hidden(examples, lambda e: [e.cells[1]], rng),
                "holds_start_and_goal": _hidden(examples, lambda e: [e.cells[0], e.cells[2]], rng)}
    rows = probe_scores(features, examples, n_fit=400, n_classes=K, alpha=1.0, code_dim=2 * CELLS * K, seed=0)
    return {kind: changed for kind, _, changed, _, _ in rows}


def test_a_state_that_holds_s_t_beats_the_goal_only_control(scores):
    assert scores["holds_s_t"] > 0.95
    assert scores["holds_s_t"] - scores["goal_only"] > 0.3


def test_a_state_that_holds_only_start_and_goal_does_not(scores):
    assert abs(scores["holds_start_and_goal"] - scores["goal_only"]) < 0.1
    assert scores["copy"] == 0.0  # copying s_0 gets no changed cell right, by definition


def test_the_positive_control_and_oracle_read_the_board(scores):
    assert scores["oracle"] > 0.95 and scores["random_code"] - scores["goal_only"] > 0.3


def test_only_strictly_intermediate_states_are_probed():
    examples = [SimpleNamespace(actions=[0], cells=[0, 1]), SimpleNamespace(actions=[0, 1, 2], cells=[0, 1, 2, 3])]
    assert intermediate_steps(examples) == [(1, 1), (1, 2)]


def test_scores():
    start, true = np.array([[0, 0, 1]]), np.array([[1, 0, 1]])
    assert changed_accuracy(np.array([[1, 0, 0]]), true, start) == 1.0  # the unchanged cells do not count
    assert exact_accuracy(np.array([[1, 0, 0]]), true) == 0.0
    assert np.isnan(changed_accuracy(start, start, start))


def test_true_visual_tokens_follow_the_environment():
    """C's positive control is fed the tokens of the board each decoded action really reaches; an illegal action or
    EOS leaves the board as it was."""
    import torch

    from neurips26.papers.mental_imagery.data import patches
    from neurips26.papers.mental_imagery.experiments import TrueVisualTokens
    from neurips26.papers.mental_imagery.puzzles import make_families

    family = make_families()["sokoban"]
    start = family.generate(np.random.default_rng(3), inner_walls=0)
    legal = next(a for a in range(len(family.actions)) if family.apply(start, a) is not None)
    tokens = TrueVisualTokens(family, [SimpleNamespace(start=start)] * 2, offset=5)
    z = tokens(torch.tensor([5 + legal, 0]))  # 0 is not one of this family's action ids
    assert torch.allclose(z[0], torch.tensor(patches(family.render(family.apply(start, legal)).astype(np.float32))))
    assert torch.allclose(z[1], torch.tensor(patches(family.render(start).astype(np.float32))))

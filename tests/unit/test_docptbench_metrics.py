"""docptbench parsing metrics against hand-worked cases, brute force and the zss package: edit distance, TEDS, tree edit
distance, reading order. (The translation metrics: test_docptbench_translation_metrics.py.)"""

from functools import cache

import numpy as np
import pytest
import zss

from neurips26.papers.docptbench import metrics as M


def _brute_levenshtein(a: str, b: str) -> int:
    @cache
    def d(i, j):
        if i == 0 or j == 0:
            return i + j
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))

    return d(len(a), len(b))


def test_levenshtein_hand_cases():
    assert M.levenshtein("kitten", "sitting") == 3
    assert M.levenshtein("flaw", "lawn") == 2
    assert M.levenshtein("", "abc") == 3
    assert M.levenshtein("abc", "abc") == 0
    assert M.levenshtein([1, 2, 3], [3, 2, 1]) == 2


def test_levenshtein_matches_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(60):
        a = "".join(rng.choice(list("abc "), size=rng.integers(0, 12)))
        b = "".join(rng.choice(list("abc "), size=rng.integers(0, 12)))
        assert M.levenshtein(a, b) == _brute_levenshtein(a, b)


def test_normalised_edit():
    assert M.normalised_edit("kitten", "sitting") == pytest.approx(3 / 7)
    assert M.normalised_edit("", "") == 0.0
    assert M.normalised_edit("abc", "") == 1.0


def test_tree_edit_distance_zhang_shasha_example():
    # Zhang & Shasha (1989): f(d(a, c(b)), e) -> f(c(d(a, b)), e) costs 2 (delete c under d, insert c above d).
    t1 = M.Node("f", [M.Node("d", [M.Node("a"), M.Node("c", [M.Node("b")])]), M.Node("e")])
    t2 = M.Node("f", [M.Node("c", [M.Node("d", [M.Node("a"), M.Node("b")])]), M.Node("e")])
    assert M.tree_edit_distance(t1, t2) == 2
    assert M.tree_edit_distance(t1, t1) == 0


def test_teds_hand_cases():
    gold = [["a", "b"], ["c", "d"]]
    assert M.teds(gold, gold) == 1.0
    assert M.teds(None, gold) == 0.0
    # one row missing: 3 insertions (tr, td, td) over max(4, 7) nodes
    assert M.teds([["a", "b"]], gold) == pytest.approx(1 - 3 / 7)
    # one cell text wrong by one of two characters: rename cost 0.5 over 7 nodes
    assert M.teds([["a", "b"], ["c", "dx"]], gold) == pytest.approx(1 - 0.5 / 7)


def test_table_html():
    assert M.table_html([["a", "b"]]) == "<table><tr><td>a</td><td>b</td></tr></table>"
    assert M.table_html(None) == ""


def test_reading_order_edit():
    assert M.reading_order_edit([0, 1, 2, 3], 4) == 0.0
    assert M.reading_order_edit([1, 0, 2, 3], 4) == pytest.approx(2 / 4)   # a swap = 2 substitutions
    assert M.reading_order_edit([0, 1, 2], 4) == pytest.approx(1 / 4)      # one block missed


def _random_tree(rng, depth=0) -> M.Node:
    children = [] if depth >= 3 else [_random_tree(rng, depth + 1) for _ in range(rng.integers(0, 3))]
    return M.Node(str(rng.choice(list("abc"))), children)


def _zss(node: M.Node) -> zss.Node:
    return zss.Node(node.label, [_zss(c) for c in node.children])


def test_tree_edit_distance_equals_zss_on_random_trees():
    """Our NumPy Zhang-Shasha against the zss package, with 0/1 renames and with a fractional rename cost."""
    rng = np.random.default_rng(3)
    fractional = {("a", "b"): 0.25, ("b", "a"): 0.25, ("a", "c"): 0.5, ("c", "a"): 0.5, ("b", "c"): 0.75,
                  ("c", "b"): 0.75}
    for _ in range(40):
        t1, t2 = _random_tree(rng), _random_tree(rng)
        assert M.tree_edit_distance(t1, t2) == zss.simple_distance(_zss(t1), _zss(t2), label_dist=lambda a, b: a != b)
        ours = M.tree_edit_distance(t1, t2, lambda x, y: fractional.get((x.label, y.label), 0.0))
        theirs = zss.distance(_zss(t1), _zss(t2), zss.Node.get_children, lambda n: 1, lambda n: 1,
                              lambda x, y: fractional.get((x.label, y.label), 0.0))
        assert ours == pytest.approx(theirs)

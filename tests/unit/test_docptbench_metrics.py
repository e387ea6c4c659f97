"""docptbench metrics against hand-worked cases and brute force: edit distance, TEDS, tree edit distance, reading
order, BLEU, chrF, STEDS."""

import math
from functools import cache

import numpy as np
import pytest

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


def test_sentence_bleu_hand_worked():
    assert M.sentence_bleu("the cat sat on the mat", "the cat sat on the mat") == pytest.approx(100.0)
    # precisions 5/6, 3/5, 2/4, 1/3, no brevity penalty
    expected = 100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    assert M.sentence_bleu("the cat sat on a mat", "the cat sat on the mat") == pytest.approx(expected)
    # 3 tokens: effective order 3 (precisions 1, 1, 1), brevity penalty exp(1 - 6/3)
    assert M.sentence_bleu("the cat sat", "the cat sat on the mat") == pytest.approx(100 * math.exp(1 - 6 / 3))
    # a zero 4-gram precision is smoothed to 1 / (2 * total) ('exp' smoothing): precisions 4/5, 2/4, 1/3, 1/(2*2)
    assert M.sentence_bleu("a b c x b", "a b c d b") == pytest.approx(100 * (4 / 5 * 2 / 4 * 1 / 3 * 1 / 4) ** 0.25)


def test_chrf():
    assert M.chrf("hello world", "hello world") == pytest.approx(100.0)
    assert M.chrf("", "hello") == 0.0
    assert 0 < M.chrf("helo world", "hello world") < 100
    # character unigrams only: hyp "ab", ref "abcd" -> P = 1, R = 1/2, F2 = 5 * 0.5 / (4 + 0.5)
    assert M.chrf("ab", "abcd", order=1) == pytest.approx(100 * 5 * 0.5 / 4.5)


def test_steds():
    gold = [("heading", "Title"), ("text", "one"), ("heading", "Two"), ("text", "two")]
    assert M.steds(gold, gold) == 1.0
    # a lost heading: its paragraph moves under the first heading. An ordered-tree mapping must keep ancestry, so
    # "two" cannot map across: delete "Two", delete "two", insert "two" under "Title" = 3, over max(5, 4) nodes
    lost = [("heading", "Title"), ("text", "one"), ("text", "two")]
    assert M.steds(lost, gold) == pytest.approx(1 - 3 / 5)
    # a misspelt paragraph costs its normalised edit distance: 1 of 3 characters over 5 nodes
    typo = [("heading", "Title"), ("text", "one"), ("heading", "Two"), ("text", "twx")]
    assert M.steds(typo, gold) == pytest.approx(1 - (1 / 3) / 5)

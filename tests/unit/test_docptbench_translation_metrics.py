"""docptbench translation metrics as DocPTBench's evaluate.py computes them: hand-worked cases, zero-match and
empty-label cases, and equality with sacrebleu and zss on fixed inputs."""

import math

import pytest
import sacrebleu
import zss
from sacrebleu.metrics import CHRF

from neurips26.papers.docptbench import translation_metrics as T

FIXED = [
    ("the cat sat on the mat", "the cat sat on the mat"),
    ("the cat sat on a mat", "the cat sat on the mat"),
    ("cat", "dog"),
    ("a b c d e", "f g h i j"),
    ("Planforthecitymarket", "Plan for the city market"),
    ("", "some words"),
    ("El comité aprobó el plan.", "El comité aprobó un plan nuevo."),
    ("a b c x b", "a b c d b"),
]


def test_markdown_and_token_text():
    md = T.markdown([("heading", "Costs  and\nprices"), ("text", "The  cat sat."), ("table", "x")])
    assert md == "# Costs and prices\nThe cat sat.\nx"
    # official get_tokenized_text: lines joined by ' \n\n ', then pre_clean turns newlines into spaces
    assert T.token_text(md) == "# Costs and prices    The cat sat.    x"
    assert T.token_text("\n\n  \n") == ""


def test_bleu_hand_worked():
    assert T.bleu("the cat sat on the mat", "the cat sat on the mat") == pytest.approx(100.0)
    # precisions 5/6, 3/5, 2/4, 1/3, no brevity penalty
    assert T.bleu("the cat sat on a mat", "the cat sat on the mat") == pytest.approx(
        100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    )
    # 3 tokens: effective order 3 (precisions 1, 1, 1), brevity penalty exp(1 - 6/3)
    assert T.bleu("the cat sat", "the cat sat on the mat") == pytest.approx(100 * math.exp(1 - 6 / 3))
    # a zero 4-gram precision is smoothed to 1 / (2 * total) ('exp' smoothing): precisions 4/5, 2/4, 1/3, 1/(2*2)
    assert T.bleu("a b c x b", "a b c d b") == pytest.approx(100 * (4 / 5 * 2 / 4 * 1 / 3 * 1 / 4) ** 0.25)


def test_bleu_is_zero_without_any_match():
    """sacrebleu stops early when no n-gram of any order matches (the hand-written version gave 50.0 and 5.34)."""
    assert T.bleu("cat", "dog") == 0.0
    assert T.bleu("a b c d e", "f g h i j") == 0.0
    assert T.bleu("", "dog") == 0.0


@pytest.mark.parametrize(("hyp", "ref"), FIXED)
def test_bleu_and_chrf_equal_sacrebleu(hyp, ref):
    assert T.bleu(hyp, ref) == sacrebleu.sentence_bleu(hyp, [ref]).score
    assert T.chrf(hyp, ref) == CHRF().sentence_score(hyp, [ref]).score


def test_chrf_hand_worked():
    assert T.chrf("hello world", "hello world") == pytest.approx(100.0)
    assert T.chrf("abc", "xyz") == 0.0
    # chrF2, whitespace ignored, orders with n-grams on both sides averaged: hyp "ab", ref "abcd": order 1 P = 1,
    # R = 1/2; order 2 P = 1, R = 1/3 -> P = 1, R = 5/12, F2 = 5 P R / (4 P + R) = 25/53
    assert T.chrf("ab", "abcd") == pytest.approx(100 * 25 / 53)
    assert T.chrf("ab cd", "abcd") == pytest.approx(100.0)


def test_steds_tree_is_the_official_one():
    tree = T.steds_tree("Report title text\n# Intro\nfirst line\n\nsecond line\n# Costs\nthird")
    expected = zss.Node(
        "ROOT",
        [
            zss.Node("TITLE", [zss.Node("Report title text")]),
            zss.Node(" Intro", [zss.Node("first line"), zss.Node("second line")]),
            zss.Node(" Costs", [zss.Node("third")]),
        ],
    )
    assert zss.simple_distance(tree, expected) == 0
    assert [n.label for n in tree.iter()] == [n.label for n in expected.iter()]


def test_steds_hand_worked():
    md = "# Intro\nthe cat sat\n# Costs\na b"  # ROOT(TITLE, Intro(line), Costs(line)): 6 nodes
    assert T.steds(md, md) == 100.0
    # text does not count, only structure: every label is non-empty, so renames cost 0
    assert T.steds("# Intor\nteh cta sat\n# Csts\nb a", md) == 100.0
    # no headings: ROOT(TITLE(line)); best mapping TITLE -> Intro, line -> line, insert TITLE, Costs, its line: 3 / 6
    assert T.steds("the cat sat", md) == pytest.approx(50.0)
    # an extra heading with one line: 2 deletions over max(8, 6) nodes
    assert T.steds(md + "\n# More\nc d", md) == pytest.approx(100 * (1 - 2 / 8))


def test_steds_empty_labels_cost_one():
    assert T.label_distance("", "x") == 1 and T.label_distance("x", "  ") == 1 and T.label_distance("x", "y") == 0
    # '#' alone is a heading with an empty label; the line after it hangs from TITLE (last_title is ''):
    # hyp ROOT(TITLE(text), '') vs ref ROOT(TITLE, Intro(text)): map TITLE -> Intro, text -> text, delete '', insert
    # TITLE = 2 over 4 nodes
    assert T.steds("#\ntext", "# Intro\ntext") == pytest.approx(50.0)
    # an empty page is ROOT(TITLE): against ROOT(TITLE, Intro(text)) two insertions over 4 nodes
    assert T.steds("", "# Intro\ntext") == pytest.approx(50.0)


def test_steds_equals_zss_with_the_official_label_distance():
    hyp, ref = "x\n# A\np\nq\n# B", "# A\np\n# B\nr\ns"
    official = (
        1
        - zss.simple_distance(
            T.steds_tree(hyp), T.steds_tree(ref), label_dist=lambda a, b: 1 if not a.split() or not b.split() else 0
        )
        / 7
    )
    assert T.steds(hyp, ref) == pytest.approx(100 * official)


def test_meteor_is_missing_without_wordnet_or_tokens():
    value = T.meteor("the cat sat", "the cat sat")
    if T.meteor_available():
        assert value == pytest.approx(100 * (1 - 0.5 * (1 / 3) ** 3))  # P = R = 1, one chunk of 3: penalty 0.5 (1/3)^3
    else:
        assert value is None
    assert T.meteor("", "the cat") is None

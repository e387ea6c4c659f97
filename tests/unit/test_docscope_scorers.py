"""docscope: the trajectory parser on well-formed and malformed outputs, each stage scorer on hand-worked cases, the
chain metric, Cohen's kappa against a hand computation, and the reader on a generated page."""

import numpy as np
import pytest

from neurips26.common.docbench import documents as D
from neurips26.papers.docscope import reader as R
from neurips26.papers.docscope import scorers as S
from neurips26.papers.docscope.index import build_page
from neurips26.papers.docscope.trajectory import TrajectoryError, parse, render

GOOD = """[page=3, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4]]
[page=7, doc_page="9", bbox=[0.0, 0.0, 1.0, 1.0]]
<facts>
- In 2019, the Coastal division reported revenue of 4,812.
</facts>
<answer> 4812 </answer>
"""


def test_parse_good_and_round_trip():
    t = parse(GOOD)
    assert t.pages == [3, 7] and t.answer == "4812"
    assert t.regions[0] == (3, "5", (0.1, 0.2, 0.5, 0.4))
    assert t.facts == ["In 2019, the Coastal division reported revenue of 4,812."]
    again = parse(render(t))
    assert again.regions == t.regions and again.facts == t.facts and again.answer == t.answer
    assert parse("Unanswerable").unanswerable
    assert parse("<answer>Unanswerable</answer>").unanswerable


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ('[page=3, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4]]', "no <answer>"),
        ("<answer>1</answer><answer>2</answer>", "2 <answer>"),
        ("<answer>1", "unbalanced"),
        ("<answer>  </answer>", "empty <answer>"),
        ('[page=x, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4]]\n<answer>1</answer>', "not an integer"),
        ('[page=0, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4]]\n<answer>1</answer>', "outside"),
        ('[page=2, doc_page="5", bbox=[0.1, 0.2, 0.5]]\n<answer>1</answer>', "3 numbers"),
        ('[page=2, doc_page="5", bbox=[0.1, 0.2, 1.5, 0.4]]\n<answer>1</answer>', "normalised"),
        ('[page=2, doc_page="5", bbox=[0.5, 0.2, 0.1, 0.4]]\n<answer>1</answer>', "normalised"),
        ('[page=2, doc_page="5", bbox=[a, b, c, d]]\n<answer>1</answer>', "four numbers"),
        ("page 3 is the evidence\n<answer>1</answer>", "not an evidence line"),
        ("<facts>\nx\n<answer>1</answer>", "<facts>"),
    ],
)
def test_parse_malformed(text, message):
    with pytest.raises(TrajectoryError, match=message):
        parse(text)


def test_parse_page_beyond_document():
    with pytest.raises(TrajectoryError, match="outside 1..5"):
        parse('[page=6, doc_page="6", bbox=[0.1, 0.2, 0.5, 0.4]]\n<answer>1</answer>', n_pages=5)


def test_page_scores_hand_worked():
    assert S.page_prf([3, 7], [3, 4, 5]) == pytest.approx((1 / 3, 1 / 2, 0.4))
    assert S.page_prf([3], []) == (0.0, 0.0, 0.0)
    # micro pools counts: tp = 1 + 1, predicted = 3 + 1, gold = 2 + 1
    assert S.page_micro([[3, 7], [1]], [[3, 4, 5], [1]]) == pytest.approx((0.5, 2 / 3, 2 * 0.5 * (2 / 3) / (0.5 + 2 / 3)))


def test_region_judge_hand_worked():
    gold = (100, 100, 200, 200)
    assert S.box_label(gold, [(100, 100, 200, 191)]) == "covered"  # 91%
    assert S.box_label(gold, [(100, 100, 200, 189)]) == "imprecise"  # 89%
    assert S.box_label(gold, [(100, 100, 150, 200), (150, 100, 200, 195)]) == "covered"  # union: 50% + 45% = 95%
    assert S.box_label(gold, [(100, 100, 110, 200)]) == "not_covered"  # exactly 10% is not > 10%
    assert S.box_label(gold, [(300, 300, 400, 400)]) == "not_covered"
    ev = [{"page": 1, "bbox": gold}, {"page": 2, "bbox": gold}]
    assert S.region_labels(ev, [(1, (0, 0, 612, 792))]) == ["covered", None]  # page 2 not predicted: not judged


def test_ink_coverage_counts_content_not_area():
    img = np.full((200, 200, 3), 255, np.uint8)
    img[10:20, 10:90] = 0  # ink only in the top strip of the gold box (dpi 72: 1 px = 1 pt)
    gold = (0, 0, 100, 100)
    assert S.ink_coverage(img, 72, gold, [(0, 0, 100, 25)]) == pytest.approx(1.0)  # all the content, 25% of the area
    assert S.ink_coverage(img, 72, gold, [(0, 0, 50, 25)]) == pytest.approx(0.5)


def test_fact_judge_hand_worked():
    vec = {"a": np.array([1.0, 0.0]), "b": np.array([0.8, 0.6]), "c": np.array([0.0, 1.0])}
    gold = "In 2019, the Coastal division reported revenue of 4,812 thousand dollars."
    texts = {gold: "a", "Coastal revenue 2019: 4812": "b", "In 2019 Coastal revenue 4,813": "b", "unrelated 2019 4812": "c"}

    def embed(xs):
        return np.stack([vec[texts[x]] for x in xs])

    assert S.fact_labels([gold], ["Coastal revenue 2019: 4812"], embed, 0.6) == [True]  # numbers match, cos 0.8
    assert S.fact_labels([gold], ["In 2019 Coastal revenue 4,813"], embed, 0.6) == [False]  # a number differs
    assert S.fact_labels([gold], ["unrelated 2019 4812"], embed, 0.6) == [False]  # cos 0 < 0.6
    assert S.fact_labels([gold], [], embed, 0.6) == [False]
    assert S.numbers("of 4,812 and 3.5 in 2019") == [4812.0, 3.5, 2019.0]


@pytest.mark.parametrize(
    "gold, pred, ok",
    [
        ("4812", "4,812", True), ("4812", "4812 thousand dollars", True), ("4812", "The answer is 4812.", True),
        ("4812", "4813", False), ("4812", "48120", False), ("3.5", "3.52", True), ("3.5", "3.6", False),
        ("Coastal", "coastal", True), ("Coastal", "The Coastal division", True), ("Coastal", "Inland", False),
        ("Unanswerable", "Unanswerable", True), ("Unanswerable", "not answerable from the document", True),
        ("Unanswerable", "4812", False), ("4812", "Unanswerable", False), ("4812", "", False),
    ],
)  # fmt: skip
def test_answer_judge(gold, pred, ok):
    assert S.answer_correct(gold, pred) is ok


def test_kappa_hand_worked():
    # 2x2 table [[20, 5], [10, 15]]: po = 0.7, pe = (25*30 + 25*20) / 2500 = 0.5 -> kappa = 0.4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert S.cohen_kappa(a, b) == pytest.approx(0.4)
    assert S.cohen_kappa(["x", "x"], ["x", "x"]) == 1.0
    with pytest.raises(ValueError):
        S.cohen_kappa([], [])


def test_reader_on_a_generated_page(tmp_path):
    b = D.PdfBuilder()
    b.add_paragraph("Coastal division revenue in 2019: 4,812 thousand dollars.")
    b.add_space(150)  # the reader reads by proximity: a distractor right under the fact can win (see the README)
    b.add_paragraph("In 2018, the Inland division reported revenue of 1,200 thousand dollars. Staff were trained.")
    b.add_space(150)
    b.add_paragraph("Inland division revenue in 2019: 3,000 thousand dollars.")
    b.save(tmp_path / "p.pdf")
    page = build_page(1, (612.0, 792.0), D.page_words(tmp_path / "p.pdf", 1))
    t = R.answer_trajectory("What was the revenue of the Coastal division in 2019?", [page], [1], "line", 60.0, 2.0)
    assert t.answer == "4812" and t.pages == [1]
    t = R.answer_trajectory(
        "By how much did the revenue of the Coastal division exceed that of the Inland division in 2019?",
        [page], [1], "paragraph", 60.0, 2.0,
    )  # fmt: skip
    assert t.answer == str(4812 - 3000)
    t = R.answer_trajectory("What was the revenue of the Delta division in 2019?", [page], [1], "line", 60.0, 2.0)
    assert t.unanswerable
    assert R.understand("Which of the A, B and C divisions reported the highest staff in 2015?").divisions == ["A", "B", "C"]


def test_fact_judge_asks_the_encoder_only_what_it_cannot_decide():
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return np.array([[1.0, 0.0] if t.startswith("In ") else [0.0, 1.0] for t in texts])

    gold = ["In 2019, the Coastal division reported revenue of 4,812 thousand dollars."]
    assert S.fact_labels(gold, [gold[0]], embed, 0.6) == [True] and not calls  # identical: cosine 1
    assert S.fact_labels(gold, ["In 2019, revenue was 4,813."], embed, 0.6) == [False] and not calls  # numbers differ
    # same numbers, other words: the encoder decides (orthogonal unit vectors here: cosine 0 -> not consistent)
    assert S.fact_labels(gold, ["Coastal, revenue (thousand dollars), 2019: 4812"], embed, 0.6) == [False] and calls

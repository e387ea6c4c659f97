"""docscope: the trajectory parser on well-formed and malformed outputs, each stage scorer on hand-worked cases, the
chain metric, Cohen's kappa against a hand computation, and the reader on a generated page."""

import numpy as np
import pytest

from neurips26.common.docbench import documents as D
from neurips26.papers.docscope import reader as R
from neurips26.papers.docscope import scorers as S
from neurips26.papers.docscope.index import build_page
from neurips26.papers.docscope.trajectory import TrajectoryError, parse, render

C3 = '[page=3, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4]]'
C7 = '[page=7, doc_page="9", bbox=[0.0, 0.0, 1.0, 1.0]]'
GOOD = f"""Let me read the tables. In 2019, the Coastal division reported revenue of 4,812 {C3}.
The Inland figure is 3,000 {C7}. The difference is 1,812.
<answer> 1812 </answer>
"""


def test_parse_good_and_round_trip():
    t = parse(GOOD)
    assert t.pages == [3, 7] and t.answer == "1812"
    assert t.regions[0] == (3, "5", (0.1, 0.2, 0.5, 0.4))
    # the unit of a citation: the part of its sentence before it (not the preceding sentence, not the next)
    assert [c.unit for c in t.citations] == ["In 2019, the Coastal division reported revenue of 4,812",
                                             "The Inland figure is 3,000"]  # fmt: skip
    assert t.reasoning == "The difference is 1,812"
    again = parse(render(t))
    assert again.citations == t.citations and again.answer == t.answer
    assert parse("Unanswerable").unanswerable
    assert parse("<answer>Unanswerable</answer>").unanswerable
    assert parse("The document has no such table.\n<answer> Unanswerable </answer>").pages == []


def test_parse_citation_alone_shares_the_sentence_before():
    t = parse(f"The tables with mode 6.0 are Table 12, Table 16, Table 18. {C3}. {C7}.\n<answer>3</answer>")
    assert [c.unit for c in t.citations] == ["The tables with mode 6.0 are Table 12, Table 16, Table 18"] * 2
    t = parse(f"Revenue was 5 {C3} {C7}.\n<answer>5</answer>")  # back-to-back inside one sentence: shared too
    assert [c.unit for c in t.citations] == ["Revenue was 5"] * 2


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        (f"Revenue was 5 {C3}.", "no <answer>"),
        ("<answer>1</answer><answer>2</answer>", "2 <answer>"),
        ("<answer>1", "unbalanced"),
        ("<answer>  </answer>", "empty <answer>"),
        ('Revenue [page=x, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4]].\n<answer>1</answer>', "is not a citation"),
        ('Revenue [page=0, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4]].\n<answer>1</answer>', "outside"),
        ('Revenue [page=2, doc_page="5", bbox=[0.1, 0.2, 0.5]].\n<answer>1</answer>', "is not a citation"),
        ('Revenue [page=2, doc_page="5", bbox=[0.1, 0.2, 0.5, 0.4].\n<answer>1</answer>', "is not a citation"),
        ('Revenue [page=2, doc_page="5", bbox=[0.1, 0.2, 1.5, 0.4]].\n<answer>1</answer>', "normalised"),
        ('Revenue [page=2, doc_page="5", bbox=[0.5, 0.2, 0.1, 0.4]].\n<answer>1</answer>', "normalised"),
        ('Revenue [page=2, doc_page="5", bbox=[a, b, c, d]].\n<answer>1</answer>', "is not a citation"),
    ],
)
def test_parse_malformed(text, message):
    with pytest.raises(TrajectoryError, match=message):
        parse(text)


def test_parse_page_beyond_document():
    with pytest.raises(TrajectoryError, match="outside 1..5"):
        parse('Revenue [page=6, doc_page="6", bbox=[0.1, 0.2, 0.5, 0.4]].\n<answer>1</answer>', n_pages=5)


def test_page_scores_hand_worked():
    assert S.page_prf([3, 7], [3, 4, 5]) == pytest.approx((1 / 3, 1 / 2, 0.4))
    # the official edge cases (score_pages): an empty prediction has precision 1; unanswerable questions are scored
    assert S.page_prf([3], []) == (1.0, 0.0, 0.0)
    assert S.page_prf([], []) == (1.0, 1.0, 1.0)
    assert S.page_prf([], [4]) == (0.0, 1.0, 0.0)
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


def _key(page=5, entity="Coastal", value="4,812", qualifiers=("revenue", "2019")):
    return S.FactKey(page, "In 2019, the Coastal division reported revenue of 4,812 thousand dollars.", entity, value,
                     qualifiers)  # fmt: skip


def test_fact_judge_checks_division_metric_year_and_value():
    key = _key()
    assert S.supports(key, "In 2019, the Coastal division reported revenue of 4,812")
    assert S.supports(key, "Coastal division, revenue (thousand dollars), 2019: 4812")
    assert not S.supports(key, "In 2019, the Inland division reported revenue of 4,812")  # right value, other division
    assert not S.supports(key, "In 2019, the Coastal division reported staff of 4,812")  # other metric
    assert not S.supports(key, "In 2018, the Coastal division reported revenue of 4,812")  # other year
    assert not S.supports(key, "In 2019, the Coastal division reported revenue of 4,813")  # other value
    assert not S.supports(key, "In 2019, the Coastalia division reported revenue of 4,812")  # whole words only
    assert S.numbers_only(key, "In 2019, the Inland division reported revenue of 4,812")  # the weak judge is fooled
    assert S.numbers("of 4,812 and 3.5 in 2019") == [4812.0, 3.5, 2019.0]


def test_fact_on_an_unpredicted_page_is_not_counted():
    t = parse(f"In 2019, the Coastal division reported revenue of 4,812 {C3}.\n<answer>4812</answer>")
    assert S.fact_labels([_key(page=3), _key(page=5)], t) == [True, None]  # page 5 not cited: not judged at all
    # the right sentence cited on another page is not admissible (doc_page never counts)
    t = parse('In 2019, the Coastal division reported revenue of 4,812 [page=4, doc_page="3", bbox=[0, 0, 1, 1]]. '
              f"Staff were trained {C3}.\n<answer>4812</answer>")  # fmt: skip
    assert S.fact_labels([_key(page=3)], t) == [False]


def _official(page, entity, value, qualifiers=()):
    return S.FactKey(page, "", entity, value, tuple(qualifiers))


def test_the_official_fact_prompts_five_examples():
    """The five examples of the official prompt (prompts/factucal_consistency.txt), with the facts' object, value and
    qualifiers written as the official benchmark's key_entity / key_value would give them."""
    cite = lambda p, d: f'[page={p}, doc_page="{d}", bbox=[0.1, 0.1, 0.9, 0.2]]'  # noqa: E731
    # 1: one unit, two facts; the page of the table is the citation itself, not a claim of the unit
    t = parse(f"The table has 3 columns. {cite(5, 3)}\n<answer>3</answer>")
    assert S.fact_labels([_official(5, "table", "3", ["columns"]), _official(5, "table", "5", ["page"])], t) == [
        True, False]  # fmt: skip
    # 2: the water-taste sentence cites page 6 (doc_page 5 does not count); the overall score cites page 5
    t = parse(f"Ward A has water taste of 44% {cite(6, 5)}. Ward A has an overall score of 65% {cite(5, 3)}.\n"
              "<answer>65%</answer>")  # fmt: skip
    facts = [_official(5, "Ward A", "65%", ["overall score"]), _official(5, "Ward A", "44%", ["water taste"])]
    assert S.fact_labels(facts, t) == [True, False]
    # 3: consecutive citations share the unit before the first one
    t = parse(f"The tables with mode 6.0 are Table 12, Table 16, Table 18. {cite(5, 4)}. {cite(7, 6)}.\n"
              "<answer>3</answer>")  # fmt: skip
    assert S.fact_labels([_official(5, "Table 16", "6.0", ["mode"]), _official(5, "Table 12", "6.0", ["mode"])],
                         t) == [True, True]  # fmt: skip
    # 4: a listed item is supported, an item the list does not have is not
    t = parse("Those product types are mortgage loans, collateral loans, unsecured loans, loans secured by "
              f"guarantees, credit facilities, and financial guarantees {cite(36, 36)}.\n<answer>6</answer>")  # fmt: skip
    assert S.fact_labels([_official(36, "product types", "Loans secured by guarantees"),
                          _official(36, "product types", "Bonds")], t) == [True, False]  # fmt: skip
    # 5: a free-text "on page 14" is not a structured citation: page 14 is not even predicted, nothing is judged
    t = parse("The 'Infrastructure EMEA' section contains one table for EBITDA on page 14.\n<answer>1</answer>")
    facts = [_official(14, "section 4.2", "Infrastructure EMEA"), _official(14, "EBITDA", "one", ["table"])]
    assert t.pages == [] and S.fact_labels(facts, t) == [None, None]
    # ... and even with page 14 predicted elsewhere, the unit before that citation does not state the facts
    t = parse(f"The 'Infrastructure EMEA' section contains one table for EBITDA on page 14. See also {cite(14, 14)}."
              "\n<answer>1</answer>")  # fmt: skip
    assert S.fact_labels(facts, t) == [False, False]


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

"""The MMLongBench-Doc scorer against its official rules (eval/eval_score.py), on hand-worked answers."""

import pytest

from neurips26.papers.docatlas.scorer import acc_and_f1, anls, levenshtein, score


def test_levenshtein_and_anls_by_hand():
    assert levenshtein("kitten", "sitting") == 3
    assert anls("mara quint", "mara quint") == 1.0
    assert anls("abcd", "abce") == pytest.approx(0.75)  # 1 edit over length 4
    assert anls("abcd", "abxy") == 0.0  # 1 - 2/4 = 0.5 is not above the 0.5 threshold


@pytest.mark.parametrize("ref, pred, fmt, expected", [
    ("752", "752", "Int", 1.0), ("752", "752.9", "Int", 1.0),  # int(float(pred)) truncates
    ("752", "751", "Int", 0.0), ("752", "many", "Int", 0.0),
    ("41.2", "41.5", "Float", 1.0),  # |41.5 - 41.2| / 41.5 < 1%
    ("41.2", "42.0", "Float", 0.0), ("0.25", "25", "Float", 1.0),  # the x100 variant
    ("25", "0.25%", "Float", 1.0), ("41.2", "n/a", "Float", 0.0),
    ("Mara Quint", "mara quint", "Str", 1.0), ("Mara Quint", "(the head) Mara Quint", "Str", 1.0),
    ("Mara Quint", "Mara Quinn", "Str", pytest.approx(0.9)), ("Lisbon", "Oslo", "Str", 0.0),
    ("2019-04-01", "2019-04-02", "Str", 0.0),  # an exact-match kind: no ANLS credit
    ("Not answerable", "Not answerable", "None", 1.0), ("Not answerable", "Lisbon", "None", 0.0),
    ("['a', 'b']", "['b', 'a']", "List", 1.0), ("['1', '2']", "['2', '1']", "List", 1.0),
    ("['1', '2']", "['1']", "List", 0.0), ("['alpha', 'beta']", "['alpha', 'betx']", "List", pytest.approx(0.75)),
])
def test_answer_types(ref, pred, fmt, expected):
    assert score(ref, pred, fmt) == expected


def test_unknown_format_is_an_error():
    with pytest.raises(ValueError, match="answer format"):
        score("a", "a", "Date")


def test_acc_and_f1_by_hand():
    refs = ["a", "b", "Not answerable", "Not answerable"]
    preds = ["a", "Not answerable", "Not answerable", "x"]
    scores = [1.0, 0.0, 1.0, 0.0]
    acc, f1 = acc_and_f1(refs, preds, scores)
    assert acc == 0.5
    recall, precision = 1 / 2, 1 / 2  # answerable: 1 of 2 right; predictions not "Not answerable": a, x
    assert f1 == pytest.approx(2 * recall * precision / (recall + precision))

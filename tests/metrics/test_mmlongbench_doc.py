"""MMLongBench-Doc's rules by hand: each quirk of ``eval_score.py`` the module docstring names.

(Agreement with the original on hundreds of cases is in test_casebooks.py.)
"""

import pytest

from docqa.metrics.mmlongbench_doc import aggregate, clean, score

NA = "Not answerable"


def s(gold, pred, fmt, **options) -> float:
    return score(gold, pred, answer_format=fmt, **options)["score"]


def test_int_truncates_and_reads_only_python_literals() -> None:
    assert s("17", "17.9", "Int") == 1.0  # int(float('17.9')) == 17
    assert s("17", "1.7e1", "Int") == 1.0
    assert s("1000", "1,000", "Int") == 0.0
    assert s("1000", "1_000", "Int") == 1.0
    assert s("8", "eight", "Int") == 0.0


def test_int_gold_that_does_not_parse() -> None:
    assert s("17.0", "17", "Int") == 0.0
    assert s("", "anything", "Int") == 1.0  # '' == '' after the failed parse
    assert s("", "anything", "Int", variant="corrected") == 0.0


def test_float_tolerance_and_percentage_rescaling() -> None:
    assert s("18.29%", "18.47", "Float") == 1.0  # within 1%
    assert s("18.29%", "18.48", "Float") == 0.0
    assert s("25%", "0.25", "Float") == 1.0  # gold / 100
    assert s("0.25", "25", "Float") == 1.0  # gold * 100
    assert s("$5.2", "5.2", "Float") == 1.0
    assert s("12.5 (approx)", "12.5", "Float") == 1.0


def test_float_gold_that_does_not_parse_crashes_the_original() -> None:
    got = score("1,000.5", "1000.5", answer_format="Float")
    assert got["score"] == 0.0
    assert "ValueError" in got["scorer_error"]


def test_str_anls_and_its_cut_off() -> None:
    assert s("abcd", "abcz", "Str") == pytest.approx(0.75)
    assert s("abcd", "abxy", "Str") == 0.0  # exactly 0.5 is cut
    assert s("Less well-off", "less well-off", "Str") == 1.0
    # upper-casing lengthens 'ß', so the length is 7 and the distance 2: 1 - 2/7
    assert s("Straße", "Strasse", "Str") == pytest.approx(1 - 2 / 7)


@pytest.mark.parametrize(
    ("gold", "close"),
    [
        ("https://w.wiki/6gb", "https://w.wiki/6gc"),
        ("main.py", "man.py"),
        ("Page 5", "page 6"),
        ("555-1234", "555-1235"),
        ("10:30 a.m.", "10:31 a.m."),
        ("2019-05-01", "2019-05-02"),
        ("2019-05", "2019-06"),
        ("ann@example.com", "ann@example.org"),
        ("300", "301"),
    ],
)
def test_exact_match_kinds(gold: str, close: str) -> None:
    assert s(gold, gold.upper(), "Str") == 1.0  # compared after lowercasing
    assert s(gold, close, "Str") == 0.0  # ANLS would give more than 0.5


def test_not_answerable_gold_is_scored_by_anls() -> None:
    assert s(NA, "not answerable.", "None") == pytest.approx(1 - 1 / 15)
    assert s(NA, "Fail to answer", "None") == 0.0


def test_lists() -> None:
    assert s("['Circle', 'Rectangle']", "['rectangle', 'circle']", "List") == 1.0  # sorted
    assert s("['Circle', 'Rectangle']", "['Circle']", "List") == 0.0  # length
    assert s("['Circle', 'Rectangle']", "['Circle', 'Rectangl']", "List") == pytest.approx(
        1 - 1 / 9
    )  # the minimum ANLS of the pairs
    assert s("[1500, 8000]", "[8000, 1500]", "List") == 1.0  # numeric: sorted, joined
    assert s("[1500, 8000]", "[1500.0, 8000]", "List") == 0.0  # '1500.0' != '1500'
    assert s(["Circle", "Rectangle"], "['circle', 'rectangle']", "List") == 1.0  # list gold
    assert s("[1500, 8000]", "[2020-2021, 8000]", "List") == 0.0  # eval gives -1


def test_list_crashes_of_the_original_score_zero_with_a_reason() -> None:
    empty = score("[]", "[]", answer_format="List")
    assert (empty["score"], "IndexError" in empty["scorer_error"]) == (0.0, True)
    assert score("[]", "[]", answer_format="List", variant="corrected") == {"score": 1.0}
    broken = score("['a']", "['a'", answer_format="List")
    assert broken["score"] == 0.0
    assert "SyntaxError" in broken["scorer_error"]
    assert score("['a']", "['a'", answer_format="List", variant="corrected")["score"] == 0.0
    code = score("['a']", "[len('ab')]", answer_format="List")
    assert code["score"] == 0.0
    assert "does not execute" in code["scorer_error"]


def test_unknown_or_missing_format_is_scored_as_a_list() -> None:
    assert s("Paris", "paris", None) == 1.0
    assert s("['a', 'b']", "['b', 'a']", "Text") == 1.0


def test_clean() -> None:
    assert clean('  "$5.2%" (est.)') == "5.2"
    assert clean("300 million") == "300 million"  # the original's rstrip lines do nothing
    with pytest.raises(ValueError, match="variant"):
        score("a", "a", answer_format="Str", variant="fixed")


def row(score_value, gold, pred, pages, sources=(), doc_type="Brochure"):
    return {
        "score": score_value,
        "gold": gold,
        "pred": pred,
        "evidence_pages": pages,
        "tags": {"evidence_sources": list(sources), "doc_type": doc_type},
    }


def test_aggregate_by_hand() -> None:
    rows = [
        row(1.0, "5", "5", [2], ["Chart"]),
        row(0.5, "x", "y", [2, 3], ["Chart", "Table"], "Academic paper"),
        row(0.0, "7", NA, [4], ["Table"]),
        row(1.0, NA, NA, []),
        row(0.0, NA, "9", []),
    ]
    got = aggregate(rows)
    recall = 1.5 / 3  # answerable golds: 1 + 0.5 + 0
    precision = 1.5 / 3  # predictions other than 'Not answerable': 3
    assert got["acc"] == pytest.approx(2.5 / 5)
    assert (got["recall"], got["precision"]) == (pytest.approx(recall), pytest.approx(precision))
    assert got["f1"] == pytest.approx(2 * recall * precision / (recall + precision))
    assert got["breakdown"]["evidence_pages"] == {
        "cross-page": {"acc": 0.5, "questions": 1},
        "single-page": {"acc": 0.5, "questions": 2},
        "unanswerable": {"acc": 0.5, "questions": 2},
    }
    assert got["breakdown"]["evidence_source"]["Chart"] == {"acc": 0.75, "questions": 2}
    assert got["breakdown"]["doc_type"]["Academic paper"] == {"acc": 0.5, "questions": 1}


def test_f1_is_zero_when_a_ratio_is_undefined_and_empty_sets_are_none() -> None:
    assert aggregate([row(1.0, NA, NA, [])])["f1"] == 0.0  # no answerable gold
    assert aggregate([row(1.0, "5", NA, [1])])["f1"] == 0.0  # no committed prediction
    assert aggregate([])["acc"] is None

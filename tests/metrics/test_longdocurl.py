"""LongDocURL's v3 rules by hand: the quirks its module docstring names.

(Agreement with the original on hundreds of cases is in test_casebooks.py.)
"""

import math

import pytest

from docqa.metrics.longdocurl import aggregate, clean, parse_prediction, score


def s(gold, pred, fmt, **options) -> float:
    return score(gold, pred, answer_format=fmt, **options)["score"]


def test_unit_stripping_removes_trailing_characters() -> None:
    assert clean("Amsterdam") == "amsterda"
    assert clean("5 meters") == "5"
    assert clean("Kingdom") == "kingdo"
    assert clean("96,395 kg") == "96395"
    assert clean("£5 (GBP)") == "5"
    assert s("Amsterdam", "amsterda", "String") == 1.0
    assert clean("Amsterdam", corrected=True) == "amsterdam"
    assert clean("5 m", corrected=True) == "5"
    assert s("Amsterdam", "amsterda", "String", variant="corrected") < 1.0


def test_the_prediction_is_evaluated_first() -> None:
    assert parse_prediction("5") == 5
    assert parse_prediction("'Paris'") == "Paris"
    assert parse_prediction("Paris") == "Paris"
    assert parse_prediction("1,234") == (1, 234)
    assert parse_prediction("2020-2021") == -1
    assert sorted(parse_prediction("{2, 1}")) == [1, 2]
    assert s("2020-2021", "2020-2021", "String") == 0.0  # '-1' against '2020-2021'
    assert s("2020-2021", "2020-2021", "String", parse=False) == 1.0
    assert s(1234, "1,234", "Integer") == 0.0  # the tuple (1, 234) cleans to ''
    assert s(96395, "96,395 kg", "Integer") == 1.0
    assert s("anything", "Fail to extract", "String") == 0.0


def test_integer_gold_written_as_a_float() -> None:
    assert s(17.0, "17", "Integer") == 0.0  # int('17.0') fails
    assert s(17.0, "17", "Integer", variant="corrected") == 1.0
    assert s("", "x", "Integer") == 1.0  # an unparseable gold that cleans to ''


def test_float() -> None:
    assert s(0.25, "25%", "Float") == 1.0
    assert s(0.25, "0.253", "Float") == 1.0
    assert s(0.25, "0.26", "Float") == 0.0
    assert s("abc", "abc", "Float") == 0.0  # the original's float() raises; its caller gives 0


def test_list_length_penalty_and_order() -> None:
    assert s(["a", "b"], "['b', 'a']", "List") == 1.0
    assert s(["a", "b"], "['a', 'b', 'c', 'd']", "List") == pytest.approx(math.sqrt(0.5))
    assert s(["a", "b"], "['a']", "List") == pytest.approx(0.5)  # shorter: no penalty
    assert s([1500, 8000], "[8000, 1500]", "List") == 0.0  # numeric lists are ordered
    assert s([1500, 8000], "[8000, 1500]", "List", variant="corrected") == 1.0
    assert s([{"name": "x", "value": 1}], "['x-1']", "List") == 1.0


def test_list_crashes_of_the_original() -> None:
    for gold, pred in (([], "[]"), (["a"], "[]"), ([{"a": 1}, "b"], "['1', 'b']")):
        got = score(gold, pred, answer_format="List")
        assert got["score"] == 0.0
        assert "the original crashes" in got["scorer_error"]
    assert s([], "[]", "List", variant="corrected") == 1.0
    assert s(["a"], "[]", "List", variant="corrected") == 0.0
    assert s([{"a": 1}, "b"], "['1', 'b']", "List", variant="corrected") == 1.0


def row(value, gold, pred, pages, sources, task):
    return {
        "score": value,
        "gold": gold,
        "pred": pred,
        "evidence_pages": pages,
        "tags": {"evidence_sources": sources, "task_tag": task},
    }


def test_aggregate_by_hand() -> None:
    rows = [
        row(1.0, 5, "5", [3], ["Text"], "Understanding"),
        row(0.5, "x", "y", [3, 4], ["Table", "Figure"], "Reasoning"),
        row(0.0, "z", "Not answerable", [1, 2], ["Other"], "Locating"),
    ]
    got = aggregate(rows)
    assert got["acc"] == pytest.approx(0.5)
    assert got["recall"] == pytest.approx(0.5)
    assert got["precision"] == pytest.approx(0.75)
    assert got["breakdown"]["task"]["Reasoning"] == {"acc": 0.5, "questions": 1}
    assert set(got["breakdown"]["evidence_source"]) == {"Text", "Table", "Figure"}  # no Other
    assert got["breakdown"]["evidence_pages"] == {
        "Multi_Page": {"acc": 0.25, "questions": 2},
        "Single_Page": {"acc": 1.0, "questions": 1},
    }
    assert got["breakdown"]["element_count"] == {"Cross_Element": {"acc": 0.5, "questions": 1}}

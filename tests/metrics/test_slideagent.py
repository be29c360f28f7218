import pytest

from docqa.metrics import METRICS, load_metrics
from docqa.metrics.base import AnswerScore
from docqa.metrics.slideagent import (
    gold_text,
    overall,
    says_not_answerable,
    score_answer,
)
from docqa.question import Question

DEFAULTS = {"overall": "per_question", "rel_tol": 0.0}


def question(answer: str | list[str], answer_format: str = "Str") -> Question:
    return Question("q", "d", "?", answer, answer_format)


def test_numeric_gold_compares_normalised_numbers() -> None:
    assert score_answer(question("17k"), "17,000", DEFAULTS) == AnswerScore(1.0, True, num=1.0)
    assert score_answer(question("2.5 million"), "2,500,000", DEFAULTS).num == 1.0
    assert score_answer(question("97%"), "0.97", DEFAULTS).num == 1.0
    assert score_answer(question("3"), "three", DEFAULTS).num == 1.0
    assert score_answer(question("97%"), "97", DEFAULTS) == AnswerScore(0.0, True, num=0.0)


def test_number_is_extracted_from_a_prediction_in_prose() -> None:
    assert score_answer(question("$17k"), "The revenue was 17k.", DEFAULTS).num == 1.0
    # the first number stated is the answer
    assert score_answer(question("17k"), "In 2019 it was 17k.", DEFAULTS).num == 0.0
    assert score_answer(question("17k"), "I do not know", DEFAULTS).num == 0.0


def test_relative_tolerance_option() -> None:
    loose = {**DEFAULTS, "rel_tol": 0.01}
    assert score_answer(question("100"), "100.5", DEFAULTS).num == 0.0
    assert score_answer(question("100"), "100.5", loose).num == 1.0


def test_text_gold_scores_token_f1() -> None:
    score = score_answer(question("revenue grew"), "The revenue grew quickly", DEFAULTS)
    assert score == AnswerScore(pytest.approx(0.8), False, f1=pytest.approx(0.8))


def test_list_gold_is_joined_and_numeric_only_with_one_number() -> None:
    assert gold_text(["apple", "cherry"]) == "apple, cherry"
    assert score_answer(question(["apple", "cherry"], "List"), "cherry and apple", DEFAULTS) == (
        AnswerScore(1.0, False, f1=1.0)
    )
    assert score_answer(question(["17k"], "List"), "17000", DEFAULTS).num == 1.0
    # two numbers: compared as text
    several = score_answer(question(["2019", "2020"], "List"), "2019", DEFAULTS)
    assert not several.numeric
    assert several.f1 == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("prediction", "correct"),
    [
        ("Not answerable", True),
        ("not answerable.", True),
        ("The question is unanswerable from these slides", True),
        ("This cannot be answered", True),
        ("I can't answer that", True),
        ("There is not enough information", True),
        ("Paris", False),
        ("", False),
        ("It is answerable", False),
    ],
)
def test_unanswerable_gold(prediction: str, correct: bool) -> None:
    assert says_not_answerable(prediction) is correct
    expected = AnswerScore(float(correct), False, f1=float(correct))
    assert score_answer(question("Not answerable", "None"), prediction, DEFAULTS) == expected
    assert score_answer(question("not answerable"), prediction, DEFAULTS) == expected


def test_overall_composites_by_hand() -> None:
    scores = [
        AnswerScore(1.0, True, num=1.0),
        AnswerScore(0.0, True, num=0.0),
        AnswerScore(1.0, True, num=1.0),
        AnswerScore(0.8, False, f1=0.8),
    ]
    # (1 + 0 + 1 + 0.8) / 4
    assert overall(scores, DEFAULTS) == pytest.approx(0.7)
    # (Num 2/3 + F1 0.8) / 2
    both = {**DEFAULTS, "overall": "mean_of_num_and_f1"}
    assert overall(scores, both) == pytest.approx((2 / 3 + 0.8) / 2)
    assert overall(scores[:3], both) == pytest.approx(2 / 3)
    assert overall([], DEFAULTS) is None
    assert overall([], both) is None


def test_registered_with_checked_options() -> None:
    load_metrics()
    metric = METRICS.get("slideagent")
    assert metric.resolve_options({}, "slideagent") == DEFAULTS
    assert metric.resolve_options({"overall": "mean_of_num_and_f1"}, "slideagent")["rel_tol"] == 0
    with pytest.raises(ValueError, match="composite"):
        metric.resolve_options({"composite": "x"}, "slideagent")
    with pytest.raises(ValueError, match="overall"):
        metric.resolve_options({"overall": "median"}, "slideagent")
    with pytest.raises(ValueError, match="rel_tol"):
        metric.resolve_options({"rel_tol": -1}, "slideagent")


def test_failed_answer_keeps_its_column() -> None:
    assert AnswerScore(1.0, True, num=1.0).failed() == AnswerScore(0.0, True, num=0.0)
    assert AnswerScore(0.5, False, f1=0.5).failed() == AnswerScore(0.0, False, f1=0.0)

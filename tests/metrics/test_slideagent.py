import pytest

from docqa.metrics import resolve_options
from docqa.metrics.slideagent import aggregate, score


def test_numeric_gold_compares_normalised_numbers() -> None:
    assert score("17k", "17,000") == {"num": 1.0, "f1": None, "overall": 1.0}
    assert score("2.5 million", "2,500,000")["num"] == 1.0
    assert score("97%", "0.97")["num"] == 1.0
    assert score("3", "three")["num"] == 1.0
    assert score("$1.2bn", "1,200 million dollars")["num"] == 1.0
    assert score("1\u202f234", "1234")["num"] == 1.0  # a thin space as thousands separator
    assert score("97%", "97") == {"num": 0.0, "f1": None, "overall": 0.0}


def test_number_is_extracted_from_a_prediction_in_prose() -> None:
    assert score("$17k", "The revenue was 17k.")["num"] == 1.0
    assert score("17k", "In 2019 it was 17k.")["num"] == 0.0  # the first number stated
    assert score("17k", "I do not know")["num"] == 0.0


def test_relative_tolerance() -> None:
    assert score("100", "100.5")["num"] == 0.0
    assert score("100", "100.5", rel_tol=0.01)["num"] == 1.0


def test_text_gold_scores_token_f1() -> None:
    assert score("revenue grew", "The revenue grew quickly") == {
        "num": None,
        "f1": pytest.approx(0.8),
        "overall": pytest.approx(0.8),
    }


def test_list_and_json_golds() -> None:
    assert score(["apple", "cherry"], "cherry and apple")["f1"] == 1.0
    assert score(["17k"], "17000")["num"] == 1.0
    assert score(17000, "17k")["num"] == 1.0  # a JSON number as gold
    several = score(["2019", "2020"], "2019")
    assert several["num"] is None
    assert several["f1"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("prediction", "correct"),
    [
        ("Not answerable", 1.0),
        ("The question is unanswerable from these slides", 1.0),
        ("I can't answer that", 1.0),
        ("Paris", 0.0),
        ("", 0.0),
        ("It is answerable", 0.0),
    ],
)
def test_unanswerable_gold(prediction: str, correct: float) -> None:
    expected = {"num": None, "f1": correct, "overall": correct}
    assert score("Not answerable", prediction, answer_format="None") == expected
    assert score("not answerable", prediction) == expected


def test_aggregate_by_hand() -> None:
    rows = [
        score("17k", "17000"),
        score("5", "6"),
        score("3", "3"),
        score("revenue grew", "The revenue grew quickly"),
    ]
    # (1 + 0 + 1 + 0.8) / 4
    assert aggregate(rows) == {
        "num": pytest.approx(2 / 3),
        "f1": pytest.approx(0.8),
        "overall": pytest.approx(0.7),
        "num_questions": 3,
        "f1_questions": 1,
    }
    # (Num 2/3 + F1 0.8) / 2
    assert aggregate(rows, overall="mean_of_num_and_f1")["overall"] == pytest.approx(
        (2 / 3 + 0.8) / 2
    )
    assert aggregate(rows[:3], overall="mean_of_num_and_f1")["overall"] == pytest.approx(2 / 3)
    assert aggregate([])["overall"] is None
    with pytest.raises(ValueError, match="median"):
        aggregate(rows, overall="median")


def test_registered_with_checked_options() -> None:
    resolved = resolve_options("slideagent", {})
    assert resolved.model_dump() == {"overall": "per_question", "rel_tol": 0.0}
    with pytest.raises(ValueError, match="takes no option 'composite'"):
        resolve_options("slideagent", {"composite": "x"})
    with pytest.raises(ValueError, match="metrics.slideagent.overall"):
        resolve_options("slideagent", {"overall": "median"})
    with pytest.raises(ValueError, match="metrics.slideagent.rel_tol: must be at least 0"):
        resolve_options("slideagent", {"rel_tol": -1})

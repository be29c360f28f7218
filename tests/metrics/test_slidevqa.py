"""SlideVQA's normalisation and scores by hand, quirks included, and the corrected option.

(Agreement with the original on hundreds of cases is in test_casebooks.py.)
"""

import pytest

from docqa.metrics.slidevqa import aggregate, evidence, normalize_answer, score


@pytest.mark.parametrize(
    ("answer", "question", "official", "corrected"),
    [
        ("The hand and thousand", "", "h thous", "hand thousand"),  # 'and' inside words
        ("3 people", "how many people came?", "3", "3"),
        ("3 people", "How many people came?", "3 people", "3"),  # question not lowercased
        ("peoples 3", "how many people came?", "s 3", "peoples 3"),  # unit as a substring
        ("North America", "", "north", "north america"),  # starts with 'no'
        ("No, it is not", "", "no", "no"),
        ("yesterday", "", "yesterday", "yesterday"),
        ("30 percent", "", "30", "30"),
        ("it is 5 hours because of rain", "", "5 hrs rain", "5 hrs rain"),
        ("Trump’s plan", "", "trump’s plan", "trumps plan"),  # only ASCII punctuation
        ("twenty one", "", "twenty 1", "twenty 1"),  # number words up to nineteen
    ],
)
def test_normalisation(answer: str, question: str, official: str, corrected: str) -> None:
    assert normalize_answer(answer, question) == official
    assert normalize_answer(answer, question, "corrected") == corrected


def test_scores_of_one_answer() -> None:
    assert score("three people", "3", question="how many people are there?") == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "em": 1.0,
    }
    got = score("New York City", "York City")
    assert (got["precision"], got["recall"], got["em"]) == (1.0, pytest.approx(2 / 3), 0.0)
    assert got["f1"] == pytest.approx(0.8)
    # no shared token: everything 0, even for two empty answers
    assert score("", "") == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "em": 0.0}


def test_a_question_ending_in_a_unit_cue_crashes_the_original() -> None:
    got = score("3", "3", question="so how many")
    assert got["f1"] == 0.0
    assert "IndexError" in got["scorer_error"]
    assert score("3", "3", question="so how many", normalization="corrected")["f1"] == 1.0
    with pytest.raises(ValueError, match="normalization"):
        score("3", "3", normalization="lenient")


def test_evidence_selection() -> None:
    assert evidence([1, 2], [2, 1]) == {
        "es_precision": 1.0,
        "es_recall": 1.0,
        "es_f1": 1.0,
        "es_em": 0.0,  # EM is ordered
    }
    assert evidence([3], []) == {"es_precision": 0.0, "es_recall": 0.0, "es_f1": 0.0, "es_em": 0.0}
    assert evidence([5, 9], [9, 5, 5])["es_precision"] == pytest.approx(2 / 3)


def test_aggregate_with_joint_scores() -> None:
    rows = [
        {**score("x y", "x y"), **evidence([1], [1])},  # both exact
        {**score("x y", "x"), **evidence([1, 2], [1])},  # P 1 R 1/2 twice
        {**score("u", "v"), **evidence([3], [3])},
    ]
    got = aggregate(rows)
    assert got["f1"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert got["em"] == pytest.approx(1 / 3)
    assert got["es_em"] == pytest.approx(2 / 3)
    # joint P = 1 * 1, R = 1/2 * 1/2 → F1 0.4 for the second; the third has P = R = 0
    assert got["joint_f1"] == pytest.approx((1 + 0.4 + 0) / 3)
    assert got["joint_em"] == pytest.approx(1 / 3)
    assert "es_f1" not in aggregate([score("x", "x")])
    assert aggregate([])["f1"] is None

import pytest

from docqa.metrics.text_f1 import STOPWORDS, answer_tokens, token_f1


def test_tokens_are_lowercased_without_punctuation_and_stopwords() -> None:
    assert answer_tokens("The U.S. revenue, in 2019!") == ["us", "revenue", "2019"]
    assert answer_tokens("“Growth” — fast") == ["growth", "fast"]
    assert answer_tokens("three stores") == ["3", "stores"]


def test_negations_are_not_stopwords() -> None:
    assert {"no", "not", "nor", "dont", "isnt"}.isdisjoint(STOPWORDS)
    assert answer_tokens("No, it is not.") == ["no", "not"]


@pytest.mark.parametrize(
    ("prediction", "gold", "f1"),
    [
        # pred {revenue, grew, quickly}, gold {revenue, grew}: P 2/3, R 1 → 0.8
        ("The revenue grew quickly", "revenue grew", 0.8),
        # {apple, banana} vs {apple, cherry}: P 1/2, R 1/2
        ("Apple, Banana", "apple and cherry", 0.5),
        # multisets: dog dog cat vs dog cat cat share one dog and one cat: P = R = 2/3
        ("dog dog cat", "dog cat cat", 2 / 3),
        ("17,000", "17000", 1.0),
        ("three stores", "3 stores", 1.0),
        ("Paris", "London", 0.0),
        ("", "", 1.0),
        ("!!!", "", 1.0),
        ("", "Paris", 0.0),
        ("Paris", "", 0.0),
        ("Yes", "No", 0.0),
        ("No", "no.", 1.0),
        # all-stopword answers keep their stopwords: 'up' is not 'down'
        ("Down", "Up", 0.0),
        ("up", "Up", 1.0),
        # ... on both sides: {it, went, up} vs {up}: P 1/3, R 1 → 0.5
        ("It went up", "Up", 0.5),
    ],
)
def test_token_f1_known_cases(prediction: str, gold: str, f1: float) -> None:
    assert token_f1(prediction, gold) == pytest.approx(f1)


def test_token_f1_is_symmetric() -> None:
    assert token_f1("revenue grew fast", "revenue") == token_f1("revenue", "revenue grew fast")

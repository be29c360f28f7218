import pytest

from docqa.metrics.anls import anls, levenshtein


def test_levenshtein() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("abc", "abc") == 0


def test_anls_cut_off_and_upper_case_length() -> None:
    assert anls("abcd", "abcz") == pytest.approx(0.75)
    assert anls("abcd", "abxy") == 0.0  # exactly 0.5
    assert anls("", "") == 1.0
    assert anls("ß", "s") == 0.0  # distance 1 over the length of "SS": exactly 0.5
    assert anls("straße", "strase") == pytest.approx(1 - 1 / 7)  # 'STRASSE' has 7 letters

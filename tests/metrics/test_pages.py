import pytest

from docqa.metrics.pages import page_precision, page_recall


def test_recall_and_precision_of_used_pages() -> None:
    assert page_recall([0, 3, 5], [3, 4]) == pytest.approx(0.5)
    assert page_precision([0, 3, 5], [3, 4]) == pytest.approx(1 / 3)
    assert page_recall([3, 4], [3, 4]) == 1.0
    assert page_precision([3, 4], [3, 4]) == 1.0
    assert page_recall([1], [3]) == 0.0
    assert page_precision([1], [3]) == 0.0


def test_repeated_pages_count_once() -> None:
    assert page_precision([3, 3, 1], [3]) == pytest.approx(0.5)
    assert page_recall([3], [3, 3]) == 1.0


def test_page_zero_is_a_page() -> None:
    assert page_recall([0], [0]) == 1.0


def test_undefined_cases_are_none() -> None:
    assert page_recall([1, 2], []) is None
    assert page_recall([], []) is None
    assert page_recall([], [2]) == 0.0
    assert page_precision([], [2]) is None
    assert page_precision([1], []) is None
